package dev.inferd.engine.tokenizer;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGUFFile;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * llama.cpp's own tokenizer test cases (tests/test-tokenizer-0): every input must give exactly the
 * ids llama.cpp gives, tokenized as that test does (add_special = false, parse_special = false).
 */
class VocabFixturesTest {

    @ParameterizedTest
    @ValueSource(strings = {"ggml-vocab-llama-spm.gguf", "ggml-vocab-phi-3.gguf", "ggml-vocab-gpt-2.gguf"})
    void tokenizesLikeLlamaCpp(String name) throws Exception {
        Path file = Fixtures.require("tokenizers/" + name);
        VocabTestCases cases = VocabTestCases.read(file);
        assertThat(cases.inputs()).hasSize(46);
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            for (int i = 0; i < cases.inputs().size(); i++) {
                String input = cases.inputs().get(i);
                assertThat(tokenizer.encode(input, false, false))
                        .as("case %d: '%s'", i, input)
                        .containsExactly(cases.expected().get(i));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ggml-vocab-llama-spm.gguf", "ggml-vocab-phi-3.gguf", "ggml-vocab-gpt-2.gguf"})
    void decodeGivesBackTheInput(String name) throws Exception {
        Path file = Fixtures.require("tokenizers/" + name);
        VocabTestCases cases = VocabTestCases.read(file);
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            for (String input : cases.inputs()) {
                // with BOS first, the space prefix that SentencePiece adds is dropped again
                assertThat(tokenizer.decode(tokenizer.encode(input, true, false))).isEqualTo(input);
                // the expected ids themselves decode to the input, less that one prefix space
                int[] ids = tokenizer.encode(input, false, false);
                String continuation = tokenizer.decode(ids);
                String prefix = name.contains("gpt-2") || input.isEmpty() ? "" : " ";
                assertThat(continuation).isEqualTo(prefix + input);
            }
        }
    }

    /** A long input without spaces is one word; a quadratic merge loop would take minutes here. */
    @ParameterizedTest
    @ValueSource(strings = {"ggml-vocab-llama-spm.gguf", "ggml-vocab-gpt-2.gguf"})
    @Timeout(20)
    void encodesALongWord(String name) throws Exception {
        Path file = Fixtures.require("tokenizers/" + name);
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            String longWord = "abc".repeat(20_000) + "🦙";
            int[] ids = tokenizer.encode(longWord, true, false);
            assertThat(ids.length).isLessThan(longWord.length() / 2);
            assertThat(tokenizer.decode(ids)).isEqualTo(longWord);
        }
    }
}
