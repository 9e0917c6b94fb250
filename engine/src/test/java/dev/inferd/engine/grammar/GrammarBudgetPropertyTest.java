package dev.inferd.engine.grammar;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.FuzzBudget;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Under a token limit, every output is complete: models with random weights (a SentencePiece and a
 * byte-level vocabulary) and the trained stories260K (when the fixtures are there) decode at
 * temperature 1 under many schemas, seeds and limits from the least the schema needs to a little
 * more; each output parses and validates with the independent validator, whether the model ended it
 * or the limit did.
 */
@AddLifecycleHook(FuzzBudget.class)
class GrammarBudgetPropertyTest {
    private static final Models MODELS = new Models();

    record Case(String name, Grammar grammar, IndependentValidator validator) {
    }

    /** Models and schemas made once for all tries (jqwik has no {@code @BeforeAll}). */
    private static final class Models {
        final List<RandomWeightModel> models = new ArrayList<>();
        final List<Case> cases = new ArrayList<>();

        Models() {
            try {
                Path dir = Files.createTempDirectory("grammar-budget");
                dir.toFile().deleteOnExit();
                models.add(RandomWeightModel.sentencePiece(3000, dir));
                models.add(RandomWeightModel.byteLevel(8192, dir));
                Path stories = Fixtures.dir().resolve("models/stories260K.gguf");
                if (Files.exists(stories)) models.add(RandomWeightModel.open(stories));
                String text;
                try (InputStream in = GrammarBudgetPropertyTest.class.getResourceAsStream("property-schemas.json")) {
                    text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                for (Object entry : (List<?>) MiniJsonSchemas.parse(text)) {
                    var m = (Map<?, ?>) entry;
                    String schemaJson = MiniJsonSchemas.MAPPER.writeValueAsString(m.get("schema"));
                    cases.add(new Case((String) m.get("name"), JsonSchemaCompiler.compile(m.get("schema")),
                            new IndependentValidator(schemaJson)));
                }
                cases.add(new Case("json object", JsonSchemaCompiler.anyObject(JsonSchemaCompiler.Options.DEFAULT),
                        new IndependentValidator("{\"type\":\"object\"}")));
                cases.add(new Case("json value, free layout", JsonSchemaCompiler.anyValue(JsonSchemaCompiler.Options.FREE_LAYOUT),
                        new IndependentValidator("true")));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Provide
    Arbitrary<Integer> cases() {
        return Arbitraries.integers().between(0, MODELS.cases.size() - 1);
    }

    @Provide
    Arbitrary<Integer> models() {
        return Arbitraries.integers().between(0, MODELS.models.size() - 1);
    }

    @Property(tries = 120)
    void everyOutputWithinItsLimitParsesAndValidates(@ForAll("cases") int caseIndex, @ForAll("models") int modelIndex,
                                                     @ForAll @LongRange(min = 1, max = 1_000_000) long seed,
                                                     @ForAll @IntRange(min = 0, max = 30) int slack) {
        Case c = MODELS.cases.get(caseIndex);
        RandomWeightModel model = MODELS.models.get(modelIndex);
        int needed = c.grammar().matcher(model.vocabulary).tokensToComplete();
        assertThat(needed).as(c.name()).isLessThan(200);
        int limit = needed + slack;
        var out = model.decodeWithin(c.grammar(), seed, limit);
        String where = c.name() + " on " + model.tokenizer.vocabSize() + " tokens, seed " + seed + ", limit " + limit
                + " (needs " + needed + "): " + out.text();
        assertThat(out.tokens()).as(where).isLessThanOrEqualTo(limit);
        assertThat(c.grammar().matches(out.bytes())).as("complete: " + where).isTrue();
        try {
            MiniJsonSchemas.parse(out.text());
        } catch (RuntimeException e) {
            fail("does not parse: " + where, e);
        }
        assertThat(c.validator().errors(out.text())).as(where).isEmpty();
    }
}
