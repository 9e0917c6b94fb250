package dev.inferd.engine.tokenizer;

import de.kherud.llama.LlamaModel;
import de.kherud.llama.args.LogFormat;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGUFFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The catalog's largest vocabularies, the real ones, tokenize here as in llama.cpp b4916 (through the JNI binding,
 * add_special = false, parse_special = true): Gemma 3's 262,144 SentencePiece pieces and Gemma 2's 256,000 (byte
 * fallback, no space prefix, user-defined runs of newlines and spaces and HTML tags), Mistral Nemo's tekken
 * (131,072 tokens, 1,000 of them control tokens) and GPT-4o's o200k under the {@code gpt-4o} pre-tokenizer
 * (Phi-4-mini's vocabulary is o200k with its own control tokens added). The vocabularies come as Hugging Face
 * files ({@code scripts/test-vocabularies.sh} fetches them, pinned by hash) and become GGUF keys the way llama.cpp's
 * converter makes them ({@link HuggingFaceVocabulary}); both tokenizers then read the same file. The texts are
 * {@link PreTokenizersLlamaCppTest}'s, user-defined tokens and whitespace runs, and each family's chat markup.
 *
 * <p>The ids must also be the Hugging Face tokenizers' own ({@code hf-token-ids.json}, from their transformers.js
 * port), which shows the converted file is faithful; the one known difference is {@link #splitsAtMarks}.
 */
@Tag("slow")
class RealVocabulariesLlamaCppTest {
    @TempDir
    static Path dir;

    @BeforeAll
    static void quietLlamaCpp() {
        LlamaModel.setLogger(LogFormat.TEXT, (level, message) -> { });
    }

    static Stream<Arguments> vocabularies() {
        return Stream.of(
                Arguments.of("gemma3", null, "<start_of_turn>user\nHi there<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>"),
                Arguments.of("gemma2", null, "<start_of_turn>user\n<b>bold</b> and <code>x</code><end_of_turn>"),
                Arguments.of("mistral_nemo", "tekken", "[INST]What is 2+2?[/INST]4</s>[AVAILABLE_TOOLS][{\"a\": 1}][/AVAILABLE_TOOLS]"),
                Arguments.of("gpt4o", "gpt-4o", "<|endoftext|>text<|endofprompt|> more<|endoftext|>"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vocabularies")
    void encodesAndDecodesLikeLlamaCpp(String name, String pre, String markup) throws Exception {
        VocabularyModel vocabulary = HuggingFaceVocabulary.read(fetched().resolve(name), name, pre);
        Path file = vocabulary.write(dir.resolve("vocab-" + name + ".gguf"));
        List<String> texts = texts(markup);
        try (GGUFFile gguf = GGUFFile.open(file); LlamaModel reference = PreTokenizersLlamaCppTest.openReference(file)) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            Map<String, int[]> huggingFace = huggingFaceIds(name);
            for (String text : texts) {
                int[] theirs = reference.encode(text);
                int[] ours = tokenizer.encode(text, false, true);
                assertThat(ours).as("%s: '%s'", name, text).containsExactly(theirs);
                assertThat(huggingFace).as("hf-token-ids.json lacks a text: run scripts/hf-token-ids.js").containsKey(text);
                if (splitsAtMarks(name, text)) {
                    assertThat(ours).as("%s: '%s' against Hugging Face", name, text).isNotEqualTo(huggingFace.get(text));
                } else {
                    assertThat(ours).as("%s: '%s' against Hugging Face", name, text).containsExactly(huggingFace.get(text));
                }
                // llama.cpp's decode spells control tokens out; ours leaves them out, as a user sees the text
                if (Arrays.stream(theirs).noneMatch(t -> vocabulary.types()[t] == VocabularyModel.CONTROL)) {
                    assertThat(tokenizer.decode(theirs)).as("%s decodes '%s'", name, text).isEqualTo(reference.decode(theirs));
                }
            }
        }
    }

    /**
     * Where llama.cpp, and so this engine, part from the Hugging Face tokenizer: llama.cpp's regexes for tekken and
     * gpt-4o leave combining marks ({@code \p{M}}) out of the letter runs, so a Devanagari or Thai word splits at its
     * vowel signs (llama.cpp's newest regexes for these two do the same). The text decodes the same either way.
     */
    static boolean splitsAtMarks(String name, String text) {
        return (name.equals("mistral_nemo") || name.equals("gpt4o")) && text.codePoints().anyMatch(c ->
                Character.UnicodeScript.of(c) == Character.UnicodeScript.DEVANAGARI
                        || Character.UnicodeScript.of(c) == Character.UnicodeScript.THAI);
    }

    /** The Hugging Face tokenizers' ids for each text (add_special_tokens false), written by scripts/hf-token-ids.js. */
    private static Map<String, int[]> huggingFaceIds(String name) throws IOException {
        try (var in = RealVocabulariesLlamaCppTest.class.getResourceAsStream("hf-token-ids.json")) {
            Map<String, int[]> ids = new HashMap<>();
            for (JsonNode entry : new JsonMapper().readTree(in).get(name)) {
                ids.put(entry.get("text").asString(), entry.get("ids").valueStream().mapToInt(JsonNode::asInt).toArray());
            }
            return ids;
        }
    }

    /** {@link PreTokenizersLlamaCppTest}'s texts, then user-defined tokens and whitespace runs, then the family's markup. */
    private static List<String> texts(String markup) {
        List<String> texts = new ArrayList<>(PreTokenizersLlamaCppTest.TEXTS);
        texts.add("<table>\n  <tr><td>cell</td></tr>\n</table>\n\n\n\n    indented\t\t\ttabs");
        texts.add("  two leading spaces and trailing two  ");
        texts.add(markup);
        return texts;
    }

    /** Where {@code scripts/test-vocabularies.sh} keeps the vocabularies; skips the test when they cannot be had. */
    private static Path fetched() throws IOException, InterruptedException {
        List<String> out = Fixtures.fromSetupScript("test-vocabularies.sh", "the real vocabularies could not be fetched");
        Fixtures.prerequisite(out.size() == 1, "scripts/test-vocabularies.sh printed " + out);
        return Path.of(out.get(0));
    }
}
