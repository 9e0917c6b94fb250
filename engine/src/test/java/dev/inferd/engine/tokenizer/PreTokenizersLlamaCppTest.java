package dev.inferd.engine.tokenizer;

import de.kherud.llama.LlamaModel;
import de.kherud.llama.ModelParameters;
import de.kherud.llama.args.LogFormat;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGUFFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each byte-level BPE pre-tokenizer the catalog's models name, against llama.cpp b4916 (through the JNI binding, whose
 * {@code encode} tokenizes with add_special = false and parse_special = true) on the same file: GPT-2's real vocabulary
 * and merges (the fixture) under each pre-tokenizer's name, in a one-layer model llama.cpp can load. The split into
 * words is what differs between them, and the texts are chosen to split differently: scripts without spaces,
 * contractions, digit runs, code, whitespace runs and emoji. b4916 knows every pre-tokenizer the catalog uses, so
 * no newer llama.cpp is needed here. Seven models of GPT-2's 50,257 tokens take half a minute: tagged slow.
 */
@Tag("slow")
class PreTokenizersLlamaCppTest {
    @TempDir
    static Path dir;

    static final List<String> TEXTS = List.of(
            "Hello world! It's a test, isn't it? I'M SURE they'll say we've done it.",
            "Grüße aus Köln: Straße, Äpfel, naïve café, œuvre, Ångström.",
            "Привет, мир! Ελληνικά κείμενα. שלום עולם. مرحبا بالعالم. नमस्ते दुनिया।",
            "日本語のテキストと中文文本，한국어 텍스트도 있습니다。",
            "ไทยภาษาไม่มีช่องว่าง และ tiếng Việt có dấu.",
            "1234567890 3.14159 1,000,000 -42 0x1F 1e-9 2024-06-30 12:34:56 $19.99 100%",
            "def f(x):\n    return x**2 + 1  # square\n\nfor i in range(10):\n\tprint(f(i))",
            "int main() { std::vector<int> v{1,2,3}; return v[0] != 0 ? -1 : 0; } // C++",
            "{\"key\": [1, 2.5, null, true], \"nested\": {\"a\": \"b\"}}",
            "   leading spaces,\ttabs\t\tand\n\n\nnewlines   \r\n trailing   ",
            "emoji 🦙🔥👍🏽 family 👨‍👩‍👧‍👦 flags 🇫🇷🇯🇵 and ❤️ hearts",
            "CamelCaseIdentifiers and snake_case_names and SCREAMING_CASE, xmlHTTPRequest",
            "'s 't 're 've 'm 'll 'd 'S 'T 'RE — “quotes” ‘single’ «guillemets»",
            "a\u00a0b\u2003c\u200bd e\u3000f");

    @BeforeAll
    static void quietLlamaCpp() {
        LlamaModel.setLogger(LogFormat.TEXT, (level, message) -> { });
    }

    @ParameterizedTest
    @ValueSource(strings = {"gpt-2", "llama-bpe", "qwen2", "deepseek-r1-qwen", "smollm", "tekken", "gpt-4o"})
    void encodesLikeLlamaCpp(String pre) throws Exception {
        Path file = withPreTokenizer(Fixtures.require("tokenizers/ggml-vocab-gpt-2.gguf"), pre, dir.resolve("vocab-" + pre + ".gguf"));
        try (GGUFFile gguf = GGUFFile.open(file); LlamaModel reference = openReference(file)) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            for (String text : TEXTS) {
                assertThat(tokenizer.encode(text, false, true)).as("%s: '%s'", pre, text).containsExactly(reference.encode(text));
            }
        }
    }

    /**
     * SentencePiece with byte fallback (Llama 2's 32,000 pieces; Gemma's vocabulary of 262k works the same way, and
     * Phi-3's is covered by {@link VocabFixturesTest}): pieces the vocabulary lacks, in any script or emoji, become bytes.
     */
    @Test
    void sentencePieceWithByteFallbackEncodesLikeLlamaCpp() throws Exception {
        Path file = withPreTokenizer(Fixtures.require("tokenizers/ggml-vocab-llama-spm.gguf"), null, dir.resolve("vocab-spm.gguf"));
        try (GGUFFile gguf = GGUFFile.open(file); LlamaModel reference = openReference(file)) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            for (String text : TEXTS) {
                assertThat(tokenizer.encode(text, false, true)).as("spm: '%s'", text).containsExactly(reference.encode(text));
            }
        }
    }

    /**
     * The vocabulary of {@code vocab} in a one-layer llama of zeros; a byte-level BPE one under the pre-tokenizer
     * {@code pre}, a SentencePiece one ({@code pre} null) as it is.
     */
    static Path withPreTokenizer(Path vocab, String pre, Path out) throws IOException {
        try (GGUFFile source = GGUFFile.open(vocab)) {
            var m = source.metadata();
            boolean bpe = pre != null;
            return new VocabularyModel(bpe ? pre : "spm", bpe ? "gpt2" : "llama", pre,
                    (String[]) m.get("tokenizer.ggml.tokens"), (int[]) m.get("tokenizer.ggml.token_type"),
                    bpe ? null : (float[]) m.get("tokenizer.ggml.scores"),
                    bpe ? (String[]) m.get("tokenizer.ggml.merges") : null,
                    source.getInt("tokenizer.ggml.bos_token_id", 0), source.getInt("tokenizer.ggml.eos_token_id", 0),
                    source.getInt("tokenizer.ggml.unknown_token_id", 0), true).write(out);
        }
    }

    static LlamaModel openReference(Path model) {
        try {
            return new LlamaModel(new ModelParameters().setModel(model.toString()).setThreads(1));
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            Fixtures.prerequisite(false, "llama.cpp JNI binding unavailable here: " + e);
            throw e;
        }
    }
}
