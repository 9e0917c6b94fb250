package dev.inferd.engine.generate;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.sample.SamplingParams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Control tokens add no text, except those a request names (tool-call markers, which the output
 * parser must see). stories260K's {@code <s>} (id 1) is a control token; a logit bias makes the
 * model take it.
 */
class ControlTokenTextTest {
    private static LocalTextGenerator generator;

    @BeforeAll
    static void open() throws Exception {
        generator = LocalTextGenerator.open(Fixtures.storiesModel(), LocalTextGenerator.Options.DEFAULTS);
    }

    @AfterAll
    static void close() {
        if (generator != null) generator.close();
    }

    private static String text(Set<String> controlTokenText) throws InterruptedException {
        var sampling = new SamplingParams(0f, 1f, 1L, 0f, 0f, Map.of(1, 100f));
        var request = new GenerationRequest(generator.textPrompt("Once"), 1, 2, List.of(), sampling, -1)
                .withControlTokenText(controlTokenText);
        Generation run = generator.submit(request);
        var out = new StringBuilder();
        while (true) {
            GenerationEvent e = run.next();
            if (e instanceof GenerationEvent.Text t) out.append(t.text());
            if (e instanceof GenerationEvent.End) break;
        }
        return out.toString();
    }

    @Test
    void aNamedControlTokenIsText() throws Exception {
        assertThat(text(Set.of("<s>"))).isEqualTo("<s><s>");
    }

    @Test
    void otherControlTokensAreNot() throws Exception {
        assertThat(text(Set.of())).isEmpty();
        assertThat(text(Set.of("<|python_tag|>"))).isEmpty();
    }
}
