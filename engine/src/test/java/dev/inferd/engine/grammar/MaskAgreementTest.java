package dev.inferd.engine.grammar;

import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Masks, however computed (the whole trie, or plain tokens at once inside a free string), allow
 * exactly the tokens that the grammar takes one by one.
 */
class MaskAgreementTest {
    private static final List<String> PIECES = List.of("a", "b", "ab", "abc", " ", "  ", "\"", "\",", "\":", "\": \"",
            "{", "}", "{\"", "\"}", "[", "]", ",", ":", "1", "12", "-", ".", "e", "\\", "\\\"", "\\n", "\\u00", "é", "\u00c3",
            "\n", "\n  ", "true", "null", "false", "x\"", "name", " name", "\"name\"", "é\"", "ab\"}");
    private static final TokenVocabulary VOCABULARY = vocabulary();

    private static TokenVocabulary vocabulary() {
        byte[][] bytes = new byte[PIECES.size() + 4][];
        for (int i = 0; i < PIECES.size(); i++) bytes[i] = PIECES.get(i).getBytes(StandardCharsets.UTF_8);
        bytes[PIECES.size()] = new byte[] {(byte) 0xC3}; // half of a two-byte character
        bytes[PIECES.size() + 1] = new byte[] {(byte) 0xA9};
        bytes[PIECES.size() + 2] = new byte[] {(byte) 0xFF}; // never valid UTF-8
        return TokenVocabulary.of(bytes, new int[] {PIECES.size() + 3});
    }

    @Test
    void masksAgreeWithTakingEachTokenAlone() {
        List<Grammar> grammars = List.of(
                JsonSchemaCompiler.anyObject(JsonSchemaCompiler.Options.DEFAULT),
                JsonSchemaCompiler.compile(Map.of("type", "object", "properties", Map.of("name", Map.of("type", "string"),
                        "tags", Map.of("type", "array", "items", Map.of("type", "string", "maxLength", 3))),
                        "required", List.of("name", "tags"), "additionalProperties", false)));
        long[] mask = new long[VOCABULARY.maskWords()];
        int checked = 0;
        for (Grammar g : grammars) {
            for (long seed = 0; seed < 30; seed++) {
                var random = new SplittableRandom(seed);
                GrammarMatcher m = g.matcher(VOCABULARY);
                for (int step = 0; step < 60 && !m.isEnded(); step++) {
                    m.fillMask(mask);
                    List<Integer> allowed = new ArrayList<>();
                    for (int t = 0; t < VOCABULARY.size(); t++) {
                        boolean inMask = (mask[t >>> 6] & 1L << t) != 0;
                        assertThat(inMask).as("token %d at step %d", t, step).isEqualTo(m.isAllowed(t));
                        if (inMask) allowed.add(t);
                    }
                    checked++;
                    if (allowed.isEmpty()) break;
                    m.accept(allowed.get(random.nextInt(allowed.size())));
                }
            }
        }
        assertThat(checked).isGreaterThan(500);
    }
}
