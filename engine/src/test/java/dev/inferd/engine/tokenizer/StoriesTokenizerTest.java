package dev.inferd.engine.tokenizer;

import dev.inferd.engine.MiniJson;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGUFFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The tokenizer of the real tiny model, against llama.cpp's prompts and greedy completions. */
class StoriesTokenizerTest {
    private static GGUFFile gguf;
    private static Tokenizer tokenizer;

    @BeforeAll
    static void load() throws Exception {
        gguf = GGUFFile.open(Fixtures.storiesModel());
        tokenizer = Tokenizer.fromGGUF(gguf);
    }

    @AfterAll
    static void close() {
        if (gguf != null) gguf.close();
    }

    @Test
    void onceUponATime() {
        assertThat(tokenizer.encode("Once upon a time", true, false)).containsExactly(1, 403, 407, 261, 378);
        assertThat(tokenizer.vocabSize()).isEqualTo(512);
        assertThat(tokenizer.bos()).isEqualTo(1);
        assertThat(tokenizer.eos()).isEqualTo(2);
        assertThat(tokenizer.addsBos()).isTrue();
        assertThat(tokenizer.isEndOfGeneration(2)).isTrue();
        assertThat(tokenizer.isEndOfGeneration(1)).isFalse();
    }

    @Test
    @SuppressWarnings("unchecked")
    void goldenPromptsAndCompletions() throws Exception {
        var golden = (Map<String, Object>) MiniJson.parse(Files.readString(Fixtures.require("golden/stories260K-greedy.json")));
        var cases = (List<Map<String, Object>>) golden.get("cases");
        assertThat(cases).hasSize(6);
        for (Map<String, Object> c : cases) {
            String prompt = (String) c.get("prompt");
            int[] promptTokens = ids(c.get("prompt_tokens"));
            assertThat(tokenizer.encode(prompt, true, false)).as(prompt).containsExactly(promptTokens);
            assertThat(tokenizer.decode(promptTokens)).isEqualTo(prompt);
            int[] completionTokens = ids(c.get("completion_tokens"));
            assertThat(tokenizer.decode(completionTokens)).as(prompt).isEqualTo(c.get("completion"));
        }
    }

    private static int[] ids(Object list) {
        return ((List<?>) list).stream().mapToInt(o -> ((Number) o).intValue()).toArray();
    }
}
