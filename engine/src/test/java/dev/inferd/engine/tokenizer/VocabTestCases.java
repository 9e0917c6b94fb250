package dev.inferd.engine.tokenizer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * llama.cpp's tokenizer test cases beside a vocabulary file: {@code X.gguf.inp} holds the inputs
 * separated by {@code "\n__ggml_vocab_test__\n"} (so a case has no trailing newline of its own, and the
 * separator after the last case ends the file), {@code X.gguf.out} one line of ids per case. This is
 * how llama.cpp's tests/test-tokenizer-0.cpp reads them.
 */
record VocabTestCases(List<String> inputs, List<int[]> expected) {
    private static final String SEPARATOR = "\n__ggml_vocab_test__\n";

    static VocabTestCases read(Path vocabFile) throws IOException {
        String raw = Files.readString(vocabFile.resolveSibling(vocabFile.getFileName() + ".inp"));
        List<String> inputs = new ArrayList<>();
        int pos = 0;
        while (pos < raw.length()) {
            int next = raw.indexOf(SEPARATOR, pos);
            if (next < 0) {
                inputs.add(raw.substring(pos));
                break;
            }
            inputs.add(raw.substring(pos, next));
            pos = next + SEPARATOR.length();
        }
        List<int[]> expected = new ArrayList<>();
        for (String line : Files.readAllLines(vocabFile.resolveSibling(vocabFile.getFileName() + ".out"))) {
            String ids = line.strip();
            expected.add(ids.isEmpty() ? new int[0] : Arrays.stream(ids.split(" ")).mapToInt(Integer::parseInt).toArray());
        }
        if (inputs.size() != expected.size()) {
            throw new IllegalStateException(vocabFile + ": " + inputs.size() + " inputs but " + expected.size() + " outputs");
        }
        return new VocabTestCases(inputs, expected);
    }
}
