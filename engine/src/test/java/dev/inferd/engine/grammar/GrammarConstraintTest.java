package dev.inferd.engine.grammar;

import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The grammar as the sampler's constraint: allowed tokens only, end of generation only when complete. */
class GrammarConstraintTest {
    // tokens: 0 end of generation, 1 "\"a", 2 "b\"", 3 "\"", 4 "x"
    private static final TokenVocabulary VOCABULARY = TokenVocabulary.of(new byte[][] {
            null, bytes("\"a"), bytes("b\""), bytes("\""), bytes("x")}, new int[] {0});
    private static final Grammar AB = JsonSchemaCompiler.compile(Map.of("const", "ab"));

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static float[] maskedLogits(GrammarConstraint c) {
        float[] logits = new float[5];
        c.mask(logits);
        return logits;
    }

    private static boolean allowed(float[] logits, int token) {
        return logits[token] != Float.NEGATIVE_INFINITY;
    }

    @Test
    void endOfGenerationIsMaskedUntilCompleteAndForcedAfter() {
        var c = GrammarConstraint.active(AB, VOCABULARY);
        float[] first = maskedLogits(c);
        assertThat(allowed(first, 1)).isTrue();
        assertThat(allowed(first, 0)).isFalse();
        assertThat(allowed(first, 4)).isFalse();
        c.accept(1);
        float[] second = maskedLogits(c);
        assertThat(allowed(second, 2)).isTrue();
        assertThat(allowed(second, 0)).isFalse();
        c.accept(2);
        float[] last = maskedLogits(c);
        assertThat(allowed(last, 0)).isTrue();
        for (int t = 1; t < 5; t++) assertThat(allowed(last, t)).as("token %d", t).isFalse();
    }

    @Test
    void underALimitOnlyTokensThatLeaveRoomToCompleteAreAllowed() {
        Grammar string = JsonSchemaCompiler.compile(Map.of("type", "string"));
        var free = GrammarConstraint.active(string, VOCABULARY);
        var limited = GrammarConstraint.active(string, VOCABULARY);
        limited.limit(2);
        assertThat(GrammarConstraint.factory(string, VOCABULARY).tokensToComplete()).isEqualTo(2); // " and "
        free.accept(1);
        limited.accept(1); // "a: one token left, which must close the string
        float[] unlimited = maskedLogits(free);
        float[] last = maskedLogits(limited);
        assertThat(allowed(unlimited, 4)).isTrue();
        assertThat(allowed(last, 4)).as("x leaves the string open").isFalse();
        assertThat(allowed(last, 2)).isTrue();
        assertThat(allowed(last, 3)).isTrue();
    }

    @Test
    void anInactiveConstraintAllowsEverythingUntilActivated() {
        var c = GrammarConstraint.inactive(VOCABULARY);
        float[] free = maskedLogits(c);
        for (int t = 0; t < 5; t++) assertThat(allowed(free, t)).isTrue();
        c.accept(4);
        c.activate(AB);
        assertThat(c.isActive()).isTrue();
        float[] constrained = maskedLogits(c);
        assertThat(allowed(constrained, 1)).isTrue();
        assertThat(allowed(constrained, 4)).isFalse();
    }
}
