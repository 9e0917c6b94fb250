package dev.inferd.engine.tokenizer;

import de.kherud.llama.LlamaModel;
import de.kherud.llama.ModelParameters;
import de.kherud.llama.args.LogFormat;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGUFFile;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Same file, same ids: the stories260K tokenizer against llama.cpp itself (through the JNI binding,
 * whose {@code encode} tokenizes with add_special = false and parse_special = true).
 */
class LlamaCppReferenceTest {

    @Test
    void encodesLikeLlamaCppOnTheRealModel() throws Exception {
        Path model = Fixtures.storiesModel();
        List<String> inputs = new ArrayList<>(VocabTestCases.read(Fixtures.require("tokenizers/ggml-vocab-llama-spm.gguf")).inputs());
        inputs.addAll(List.of("<s>inside</s>text", "Lily's dog's ball", "tab\there", "new\nline\n\n", " ", "émoji 🦙 and ünïcödé"));
        try (GGUFFile gguf = GGUFFile.open(model); LlamaModel reference = openReference(model)) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            for (String input : inputs) {
                assertThat(tokenizer.encode(input, false, true)).as("'%s'", input).containsExactly(reference.encode(input));
            }
        }
    }

    private static LlamaModel openReference(Path model) {
        try {
            LlamaModel.setLogger(LogFormat.TEXT, (level, message) -> { }); // keep llama.cpp's log out of the test output
            return new LlamaModel(new ModelParameters().setModel(model.toString()).setThreads(1));
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            Fixtures.prerequisite(false, "llama.cpp JNI binding unavailable here: " + e);
            throw e;
        }
    }
}
