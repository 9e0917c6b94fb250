package dev.inferd.engine.tokenizer;

import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.GGUFWriter;
import dev.inferd.engine.gguf.GGUFFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Behaviour that depends on tokenizer.ggml.pre, on small made-up byte-level vocabularies. */
class ByteLevelBpeTokenizerTest {
    private static final String[] TOKENS = {"a", "b", "c", "ab", "abc", "Ġ", "1", "2", "12",
            "<|begin_of_text|>", "<|eot_id|>", "<|end_of_text|>", "<|im_end|>"};
    private static final int[] TYPES = {1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 1};
    private static final String[] MERGES = {"a b", "1 2"};

    @TempDir
    Path dir;

    private Tokenizer load(String pre) throws Exception {
        var tiny = new GGUFWriter()
                .put("tokenizer.ggml.model", "gpt2")
                .put("tokenizer.ggml.tokens", TOKENS)
                .put("tokenizer.ggml.token_type", TYPES)
                .put("tokenizer.ggml.merges", MERGES)
                .put("tokenizer.ggml.bos_token_id", 9)
                .put("tokenizer.ggml.eos_token_id", 11);
        if (pre != null) tiny.put("tokenizer.ggml.pre", pre);
        Path file = dir.resolve(pre + ".gguf");
        tiny.write(file);
        try (GGUFFile gguf = GGUFFile.open(file)) {
            return Tokenizer.fromGGUF(gguf); // the tokenizer keeps nothing of the mapping
        }
    }

    @Test
    void llama3TakesAWholeWordFromTheVocabularyWithoutMerging() throws Exception {
        assertThat(load("llama-bpe").encode("abc", false, false)).containsExactly(4);
        assertThat(load("qwen2").encode("abc", false, false)).containsExactly(3, 2);
        assertThat(load("gpt-2").encode("abc", false, false)).containsExactly(3, 2);
    }

    @Test
    void llama3AddsBosByDefaultOthersDoNot() throws Exception {
        Tokenizer llama3 = load("llama-bpe");
        assertThat(llama3.addsBos()).isTrue();
        assertThat(llama3.encode("ab", true, false)).containsExactly(9, 3);
        assertThat(llama3.decode(new int[] {9, 3, 10})).isEqualTo("ab");
        assertThat(load("qwen2").encode("ab", true, false)).containsExactly(3);
    }

    @Test
    void digitsGroupAsThePreTokenizerSays() throws Exception {
        assertThat(load("llama-bpe").encode("12", false, false)).containsExactly(8);
        assertThat(load("qwen2").encode("12", false, false)).containsExactly(6, 7);
        assertThat(load("smollm").encode("12", false, false)).containsExactly(6, 7);
    }

    @Test
    void endOfGenerationIncludesEotAndImEndByText() throws Exception {
        Tokenizer tokenizer = load("llama-bpe");
        assertThat(tokenizer.isEndOfGeneration(10)).isTrue();  // <|eot_id|>
        assertThat(tokenizer.isEndOfGeneration(11)).isTrue();  // <|end_of_text|>, eos
        assertThat(tokenizer.isEndOfGeneration(12)).isTrue();  // <|im_end|>, normal in the file
        assertThat(tokenizer.isControl(12)).isTrue();
        assertThat(tokenizer.isEndOfGeneration(9)).isFalse();
        assertThat(tokenizer.encode("ab<|eot_id|>", false, true)).containsExactly(3, 10);
    }

    @Test
    void rejectsWhatItCannotTokenizeWithAClearMessage(@TempDir Path tmp) throws Exception {
        assertThatThrownBy(() -> load("jais-2")).isInstanceOf(GGUFFormatException.class).hasMessageContaining("jais-2");
        Path bert = tmp.resolve("bert.gguf");
        new GGUFWriter().put("tokenizer.ggml.model", "bert").put("tokenizer.ggml.tokens", TOKENS).write(bert);
        try (GGUFFile gguf = GGUFFile.open(bert)) {
            assertThatThrownBy(() -> Tokenizer.fromGGUF(gguf)).isInstanceOf(GGUFFormatException.class).hasMessageContaining("bert");
        }
        Path noMerges = tmp.resolve("nomerges.gguf");
        new GGUFWriter().put("tokenizer.ggml.model", "gpt2").put("tokenizer.ggml.tokens", TOKENS).write(noMerges);
        try (GGUFFile gguf = GGUFFile.open(noMerges)) {
            assertThatThrownBy(() -> Tokenizer.fromGGUF(gguf)).isInstanceOf(GGUFFormatException.class).hasMessageContaining("merges");
        }
    }
}
