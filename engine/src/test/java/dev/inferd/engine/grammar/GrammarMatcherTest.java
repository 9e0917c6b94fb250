package dev.inferd.engine.grammar;

import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The matcher on tricky JSON text, token boundaries inside characters, masks and end of generation. */
class GrammarMatcherTest {
    private static final Grammar VALUE = JsonSchemaCompiler.anyValue(JsonSchemaCompiler.Options.FREE_LAYOUT);
    private static final Grammar OBJECT = JsonSchemaCompiler.anyObject(JsonSchemaCompiler.Options.FREE_LAYOUT);

    private static boolean matches(Grammar g, String text) {
        return g.matches(text.getBytes(StandardCharsets.UTF_8));
    }

    private static boolean matches(Grammar g, byte[] bytes) {
        return g.matches(bytes);
    }

    @Test
    void stringsWithEscapesAndUnicode() {
        assertThat(matches(VALUE, "\"plain\"")).isTrue();
        assertThat(matches(VALUE, "\"\\\"quoted\\\" \\\\ \\/ \\b\\f\\n\\r\\t\"")).isTrue();
        assertThat(matches(VALUE, "\"\\u00e9\\u20AC\\uFFFF\"")).isTrue();
        assertThat(matches(VALUE, "\"é€😀中文\"")).isTrue();
        assertThat(matches(VALUE, "\"\\x41\"")).as("unknown escape").isFalse();
        assertThat(matches(VALUE, "\"\\u12\"")).as("short unicode escape").isFalse();
        assertThat(matches(VALUE, "\"\\ud83d\\ude00\"")).as("surrogate escapes").isFalse();
        assertThat(matches(VALUE, "\"tab\there\"")).as("raw control character").isFalse();
        assertThat(matches(VALUE, "\"unterminated")).isFalse();
        assertThat(VALUE.matchesPrefix("\"unterminated".getBytes(StandardCharsets.UTF_8))).isTrue();
    }

    @Test
    void onlyWellFormedUtf8InsideStrings() {
        assertThat(matches(VALUE, new byte[] {'"', (byte) 0xC3, (byte) 0xA9, '"'})).isTrue();
        assertThat(matches(VALUE, new byte[] {'"', (byte) 0xC3, '"'})).as("truncated").isFalse();
        assertThat(matches(VALUE, new byte[] {'"', (byte) 0xC0, (byte) 0x80, '"'})).as("overlong").isFalse();
        assertThat(matches(VALUE, new byte[] {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'})).as("surrogate").isFalse();
        assertThat(matches(VALUE, new byte[] {'"', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"'})).as("above U+10FFFF").isFalse();
        assertThat(matches(VALUE, new byte[] {'"', (byte) 0x80, '"'})).as("lone continuation").isFalse();
    }

    @Test
    void numbers() {
        for (String ok : List.of("0", "-0", "7", "-12", "3.25", "-0.5", "1e5", "1E+5", "2.5e-3", "123456789")) {
            assertThat(matches(VALUE, ok)).as(ok).isTrue();
        }
        for (String bad : List.of("01", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "--1", "1.2.3", "NaN", "Infinity")) {
            assertThat(matches(VALUE, bad)).as(bad).isFalse();
        }
    }

    @Test
    void nestingAndWhitespace() {
        assertThat(matches(VALUE, "{\"a\": [1, 2, {\"b\": null}], \"c\" : true}")).isTrue();
        assertThat(matches(VALUE, "{\n  \"a\": {\n    \"b\": [\n      1\n    ]\n  }\n}")).isTrue();
        assertThat(matches(VALUE, "[" .repeat(40) + "]".repeat(40))).isTrue();
        assertThat(matches(VALUE, "[" .repeat(60) + "]".repeat(60))).as("deeper than the rule stack").isFalse();
        assertThat(matches(VALUE, "{\n" + " ".repeat(20) + "}")).isTrue();
        assertThat(matches(VALUE, "{\r\n\t\t\"a\": 1}")).isTrue();
        assertThat(matches(VALUE, "{\n" + " ".repeat(21) + "}")).as("the indent is bounded").isFalse();
        assertThat(matches(VALUE, "{  }")).as("one space at most without a line break").isFalse();
        assertThat(matches(VALUE, "{\n\n}")).as("no blank lines").isFalse();
        assertThat(matches(VALUE, " 1")).as("no leading whitespace").isFalse();
        assertThat(matches(VALUE, "1 ")).as("no trailing whitespace").isFalse();
        assertThat(matches(VALUE, "[1,]")).isFalse();
        assertThat(matches(VALUE, "{\"a\":1,}")).isFalse();
        assertThat(matches(OBJECT, "[]")).isFalse();
        assertThat(matches(OBJECT, "{}")).isTrue();
    }

    @Test
    void aCharacterSplitAcrossTokens() {
        byte[] e = "é".getBytes(StandardCharsets.UTF_8);
        var vocab = TokenVocabulary.of(new byte[][] {
                {'"'}, {e[0]}, {e[1]}, null /* end */, "\"é\"".getBytes(StandardCharsets.UTF_8)}, new int[] {3});
        var m = VALUE.matcher(vocab);
        assertThat(m.isAllowed(2)).as("a continuation byte cannot start").isFalse();
        assertThat(m.accept(0)).isTrue();
        assertThat(m.isAllowed(2)).isFalse();
        assertThat(m.accept(1)).isTrue();
        assertThat(m.isAllowed(0)).as("a quote inside a character").isFalse();
        assertThat(m.accept(2)).isTrue();
        assertThat(m.accept(0)).isTrue();
        assertThat(m.isComplete()).isTrue();
        assertThat(m.accept(3)).isTrue();
        assertThat(m.isEnded()).isTrue();
    }

    @Test
    void endOfGenerationOnlyWhenCompleteAndForcedWhenNothingCanFollow() {
        var vocab = TokenVocabulary.of(new byte[][] {bytes("{"), bytes("}"), bytes("1"), null, bytes("{}"), bytes(" ")}, new int[] {3});
        long[] mask = new long[vocab.maskWords()];
        var m = OBJECT.matcher(vocab);
        m.fillMask(mask);
        assertThat(allowed(mask, 6)).containsExactly(0, 4);
        assertThat(m.accept(3)).as("EOS before the object").isFalse();
        assertThat(m.accept(0)).isTrue();
        m.fillMask(mask);
        assertThat(allowed(mask, 6)).containsExactly(1, 5);
        assertThat(m.accept(1)).isTrue();
        assertThat(m.isComplete()).isTrue();
        assertThat(m.canContinue()).isFalse();
        m.fillMask(mask);
        assertThat(allowed(mask, 6)).as("only EOS").containsExactly(3);

        var number = VALUE.matcher(vocab);
        assertThat(number.accept(2)).isTrue();
        number.fillMask(mask);
        assertThat(allowed(mask, 6)).as("more digits or the end").containsExactly(2, 3);
    }

    @Test
    void masksAgreeWithMatchingEachTokenOnItsOwn() {
        var random = new SplittableRandom(7);
        byte[][] tokens = new byte[600][];
        for (int t = 0; t < 256; t++) tokens[t] = new byte[] {(byte) t};
        String alphabet = "{}[]\":, \n0123456789-.eEabcnulltrufsé€\\";
        for (int t = 256; t < tokens.length - 1; t++) {
            var sb = new StringBuilder();
            int len = 1 + random.nextInt(5);
            for (int k = 0; k < len; k++) sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
            byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8);
            tokens[t] = random.nextInt(4) == 0 ? java.util.Arrays.copyOf(b, Math.max(1, b.length - 1)) : b;
        }
        int eos = tokens.length - 1;
        var vocab = TokenVocabulary.of(tokens, new int[] {eos});
        Grammar schema = JsonSchemaCompiler.compile(MiniJsonSchemas.parse("""
                {"type":"object","properties":{"name":{"type":"string","maxLength":6},"n":{"type":"integer","minimum":-5,"maximum":300},
                 "tags":{"type":"array","items":{"enum":["a","bé",null]},"maxItems":3}},"required":["name"]}"""));
        long[] mask = new long[vocab.maskWords()];
        for (Grammar g : List.of(VALUE, schema)) {
            for (int walk = 0; walk < 8; walk++) {
                var m = g.matcher(vocab);
                var prefix = new java.io.ByteArrayOutputStream();
                for (int step = 0; step < 40 && !m.isEnded(); step++) {
                    m.fillMask(mask);
                    var ok = new ArrayList<Integer>();
                    for (int t = 0; t < tokens.length; t++) {
                        boolean expected;
                        if (t == eos) {
                            expected = g.matches(prefix.toByteArray());
                        } else {
                            byte[] candidate = concat(prefix.toByteArray(), tokens[t]);
                            expected = g.matchesPrefix(candidate);
                        }
                        boolean bit = (mask[t >>> 6] & 1L << t) != 0;
                        assertThat(bit).as("token %d after '%s'", t, prefix.toString(StandardCharsets.UTF_8)).isEqualTo(expected);
                        if (bit) ok.add(t);
                    }
                    if (ok.isEmpty()) break;
                    int pick = ok.get(random.nextInt(ok.size()));
                    assertThat(m.accept(pick)).isTrue();
                    if (pick != eos) prefix.writeBytes(tokens[pick]);
                }
            }
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static List<Integer> allowed(long[] mask, int n) {
        var out = new ArrayList<Integer>();
        for (int t = 0; t < n; t++) if ((mask[t >>> 6] & 1L << t) != 0) out.add(t);
        return out;
    }
}
