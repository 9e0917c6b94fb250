package dev.inferd.engine.grammar;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import dev.inferd.engine.tokenizer.Tokenizer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Models with random weights decode under many schemas and seeds at temperature 1 with the mask
 * applied; every finished output parses and validates with an independent validator, and every
 * output cut off by the token cap is a prefix of a valid one.
 */
class ConstrainedDecodingPropertyTest {
    @TempDir
    static Path dir;
    private static RandomWeightModel sentencePiece;
    private static RandomWeightModel byteLevel;
    private static RandomWeightModel llama3Sized;
    private static List<Case> cases;

    record Case(String name, String schemaJson, Grammar grammar, IndependentValidator validator) {
    }

    @BeforeAll
    static void load() throws IOException {
        sentencePiece = RandomWeightModel.sentencePiece(3000, dir);
        byteLevel = RandomWeightModel.byteLevel(8192, dir);
        cases = new ArrayList<>();
        String text;
        try (InputStream in = ConstrainedDecodingPropertyTest.class.getResourceAsStream("property-schemas.json")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (Object entry : (List<?>) MiniJsonSchemas.parse(text)) {
            var m = (Map<?, ?>) entry;
            String schemaJson = MiniJsonSchemas.MAPPER.writeValueAsString(m.get("schema"));
            cases.add(new Case((String) m.get("name"), schemaJson, JsonSchemaCompiler.compile(m.get("schema")),
                    new IndependentValidator(schemaJson)));
        }
    }

    @AfterAll
    static void close() {
        sentencePiece.close();
        byteLevel.close();
        if (llama3Sized != null) llama3Sized.close();
    }

    @Test
    void sentencePieceVocabulary() {
        int finished = 0;
        for (Case c : cases) {
            finished += check(c, sentencePiece.decode(c.grammar(), 1, 160), 1);
        }
        assertThat(finished).as("finished outputs").isGreaterThanOrEqualTo(cases.size() / 2);
    }

    @Test
    void byteLevelVocabulary() {
        int finished = 0;
        for (Case c : cases) finished += check(c, byteLevel.decode(c.grammar(), 1, 120), 1);
        assertThat(finished).as("finished outputs").isGreaterThanOrEqualTo(cases.size() / 2);
    }

    @Test
    @Tag("slow")
    void byteLevelVocabularyOf128kTokens() throws IOException {
        llama3Sized = RandomWeightModel.byteLevel(dev.inferd.engine.model.synthetic.SyntheticByteLevelVocabulary.LLAMA3_SIZE, dir);
        int finished = 0;
        for (Case c : cases) {
            for (long seed = 1; seed <= 3; seed++) finished += check(c, llama3Sized.decode(c.grammar(), seed, 200), seed);
        }
        assertThat(finished).as("finished outputs").isGreaterThanOrEqualTo(cases.size());
    }

    @Test
    void jsonObjectModeGivesAnObject() {
        Grammar object = JsonSchemaCompiler.anyObject(JsonSchemaCompiler.Options.DEFAULT);
        for (long seed = 1; seed <= 3; seed++) {
            var out = sentencePiece.decode(object, seed, 80);
            if (out.ended()) {
                assertThat(MiniJsonSchemas.parse(out.text())).as(out.text()).isInstanceOf(Map.class);
            } else {
                assertThat(object.matchesPrefix(out.bytes())).isTrue();
            }
        }
    }

    @Test
    @Tag("slow")
    void manySeedsOnBothVocabularies() {
        for (Case c : cases) {
            for (long seed = 3; seed <= 20; seed++) {
                check(c, sentencePiece.decode(c.grammar(), seed, 300), seed);
                check(c, byteLevel.decode(c.grammar(), seed, 300), seed);
            }
        }
    }

    /** Real vocabularies (GPT-2's byte-level BPE, Llama 2's SentencePiece) with random logits. */
    @Test
    void realVocabulariesWithRandomLogits() throws IOException {
        realVocabularies(cases.subList(0, 5), 1);
    }

    @Test
    @Tag("slow")
    void realVocabulariesWithRandomLogitsManySeeds() throws IOException {
        realVocabularies(cases, 10);
    }

    private static void realVocabularies(List<Case> selected, int seeds) throws IOException {
        for (String name : List.of("tokenizers/ggml-vocab-gpt-2.gguf", "tokenizers/ggml-vocab-llama-spm.gguf")) {
            Path file = Fixtures.require(name);
            try (var gguf = GGUFFile.open(file)) {
                Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
                var vocabulary = TokenVocabulary.of(tokenizer);
                for (Case c : selected) {
                    for (int seed = 0; seed < seeds; seed++) {
                        check(c, randomLogitsDecode(c.grammar(), vocabulary, tokenizer, c.name().hashCode() + seed, 200), seed);
                    }
                }
            }
        }
    }

    private static RandomWeightModel.Output randomLogitsDecode(Grammar grammar, TokenVocabulary vocabulary, Tokenizer tokenizer,
                                                               long seed, int maxTokens) {
        var random = new SplittableRandom(seed);
        var matcher = grammar.matcher(vocabulary);
        long[] mask = new long[vocabulary.maskWords()];
        var out = new ByteArrayOutputStream();
        var allowed = new int[vocabulary.size()];
        for (int n = 0; n < maxTokens; n++) {
            matcher.fillMask(mask);
            int count = 0;
            for (int t = 0; t < vocabulary.size(); t++) if ((mask[t >>> 6] & 1L << t) != 0) allowed[count++] = t;
            if (count == 0) fail("no token allowed after '" + out.toString(StandardCharsets.UTF_8) + "'");
            // a few heavy hitters, as a model's softmax has, else uniform among the allowed
            int token = allowed[random.nextInt(random.nextInt(4) == 0 ? count : Math.min(count, 1 + random.nextInt(8)))];
            assertThat(matcher.accept(token)).isTrue();
            if (matcher.isEnded()) return new RandomWeightModel.Output(out.toByteArray(), true, n + 1);
            out.writeBytes(tokenizer.tokenBytes(token));
        }
        return new RandomWeightModel.Output(out.toByteArray(), false, maxTokens);
    }

    /** 1 when the output finished (and validates), 0 when the cap cut it (and it is a valid prefix). */
    private static int check(Case c, RandomWeightModel.Output out, long seed) {
        String where = c.name() + " seed " + seed + ": " + out.text();
        if (!out.ended()) {
            assertThat(c.grammar().matchesPrefix(out.bytes())).as(where).isTrue();
            return 0;
        }
        assertThat(c.grammar().matches(out.bytes())).as(where).isTrue();
        try {
            MiniJsonSchemas.parse(out.text());
        } catch (RuntimeException e) {
            fail("does not parse: " + where, e);
        }
        assertThat(c.validator().errors(out.text())).as(where).isEmpty();
        return 1;
    }
}
