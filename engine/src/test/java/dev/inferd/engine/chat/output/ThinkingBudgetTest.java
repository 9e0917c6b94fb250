package dev.inferd.engine.chat.output;

import dev.inferd.engine.grammar.GrammarConstraint;
import dev.inferd.engine.grammar.TokenVocabulary;
import dev.inferd.engine.grammar.json.GrammarCache;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import dev.inferd.engine.sample.TokenConstraint;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thinking budget on a small vocabulary: the thinking block gets at most its budget of tokens, then
 * {@code </think>} is forced (its own token where there is one, else the text's tokens in turn), and the
 * output is free again afterwards.
 */
class ThinkingBudgetTest {
    // Tokens: 0..254 single bytes, then words, then the specials, then end of generation.
    private static final List<String> WORDS = List.of("</", "think", ">", "hmm", " answer");
    private static final List<String> SPECIALS = List.of("<think>", "</think>", "<tool_call>", "</tool_call>");
    private static final int FIRST_WORD = 255;
    private static final int FIRST_SPECIAL = FIRST_WORD + WORDS.size();
    private static final int THINK = FIRST_SPECIAL;
    private static final int END_THINK = FIRST_SPECIAL + 1;
    private static final int EOS = FIRST_SPECIAL + SPECIALS.size();
    private static final int HMM = FIRST_WORD + 3;

    private static TokenVocabulary vocabulary(boolean specialThinkTags) {
        byte[][] bytes = new byte[EOS + 1][];
        for (int b = 0; b < 255; b++) bytes[b] = new byte[] {(byte) b};
        for (int i = 0; i < WORDS.size(); i++) bytes[FIRST_WORD + i] = WORDS.get(i).getBytes(StandardCharsets.UTF_8);
        Map<Integer, String> specials = new java.util.HashMap<>();
        for (int i = 0; i < SPECIALS.size(); i++) {
            if (specialThinkTags || i >= 2) specials.put(FIRST_SPECIAL + i, SPECIALS.get(i));
        }
        return TokenVocabulary.of(bytes, new int[] {EOS}, specials);
    }

    private static final TokenVocabulary VOCABULARY = vocabulary(true);

    /** Runs the constraint for {@code steps} tokens where the model always wants {@code wanted}; the tokens taken. */
    private static int[] run(TokenConstraint c, int wanted, int steps) {
        int[] taken = new int[steps];
        for (int i = 0; i < steps; i++) {
            float[] logits = new float[EOS + 1];
            logits[wanted] = 5f;
            c.mask(logits);
            int best = 0;
            for (int t = 1; t < logits.length; t++) if (logits[t] > logits[best]) best = t;
            taken[i] = best;
            c.accept(best);
        }
        return taken;
    }

    private static int[] bytesOf(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        int[] out = new int[b.length];
        for (int i = 0; i < b.length; i++) out[i] = b[i] & 0xFF;
        return out;
    }

    @Test
    void aBlockThePromptOpenedIsClosedAfterTheBudget() {
        TokenConstraint c = ThinkingBudget.factory(5, VOCABULARY, true, null).forSequence();
        int[] taken = run(c, HMM, 9);
        assertThat(taken).containsExactly(HMM, HMM, HMM, HMM, HMM, END_THINK, HMM, HMM, HMM);
    }

    @Test
    void aBlockTheOutputOpensIsCountedFromItsOpening() {
        TokenConstraint c = ThinkingBudget.factory(3, VOCABULARY, false, null).forSequence();
        for (int t : bytesOf("\n")) c.accept(t);
        c.accept(THINK);
        assertThat(run(c, HMM, 5)).containsExactly(HMM, HMM, HMM, END_THINK, HMM);
    }

    @Test
    void anOpeningWrittenAsTextCountsToo() {
        TokenConstraint c = ThinkingBudget.factory(2, VOCABULARY, false, null).forSequence();
        for (int t : bytesOf(" <think>")) c.accept(t);
        assertThat(run(c, HMM, 4)).containsExactly(HMM, HMM, END_THINK, HMM);
    }

    @Test
    void anOutputThatDoesNotOpenWithThinkingIsLeftAlone() {
        TokenConstraint c = ThinkingBudget.factory(1, VOCABULARY, false, null).forSequence();
        for (int t : bytesOf("Hi <think>")) c.accept(t);
        assertThat(run(c, HMM, 4)).containsOnly(HMM);
    }

    @Test
    void aBlockClosedWithinTheBudgetIsLeftAlone() {
        TokenConstraint c = ThinkingBudget.factory(6, VOCABULARY, true, null).forSequence();
        run(c, HMM, 2);
        for (int word = 0; word < 3; word++) c.accept(FIRST_WORD + word); // "</", "think", ">": the text closes the block
        assertThat(run(c, HMM, 8)).containsOnly(HMM);
    }

    @Test
    void aBudgetOfNothingClosesAtOnce() {
        TokenConstraint c = ThinkingBudget.factory(0, VOCABULARY, true, null).forSequence();
        assertThat(run(c, HMM, 2)).containsExactly(END_THINK, HMM);
    }

    @Test
    void withoutAClosingTokenTheTextIsForcedInItsFewestTokens() {
        TokenVocabulary textTags = vocabulary(false);
        TokenConstraint c = ThinkingBudget.factory(2, textTags, true, null).forSequence();
        int[] taken = run(c, HMM, 7);
        // "</", "think", ">" (the byte token, the first of the two that spell it)
        assertThat(taken).containsExactly(HMM, HMM, FIRST_WORD, FIRST_WORD + 1, '>', HMM, HMM);
        assertThat(textTags.spelling("</think>")).containsExactly(FIRST_WORD, FIRST_WORD + 1, '>');
    }

    @Test
    void theForcedTokenWinsOverAnythingElseTheModelWants() {
        TokenConstraint c = ThinkingBudget.factory(1, VOCABULARY, true, null).forSequence();
        c.accept(HMM);
        float[] logits = new float[EOS + 1];
        Arrays.fill(logits, 3f);
        logits[END_THINK] = Float.NEGATIVE_INFINITY;
        c.mask(logits);
        for (int t = 0; t < logits.length; t++) {
            assertThat(logits[t]).as("token " + t).isEqualTo(t == END_THINK ? 0f : Float.NEGATIVE_INFINITY);
        }
    }

    @Test
    void aCallTriggerUnderneathSeesTheBlockClosedAndOpensACallAfterIt() {
        var grammar = ToolCallGrammar.afterTrigger(ToolCallFormat.HERMES, List.of(new ToolCallGrammar.Tool("f", null)), false,
                new GrammarCache(4, JsonSchemaCompiler.Options.FREE_LAYOUT));
        var inner = GrammarConstraint.triggeredFactory(grammar, VOCABULARY, ToolCallGrammar.trigger(ToolCallFormat.HERMES, true));
        TokenConstraint c = ThinkingBudget.factory(2, VOCABULARY, true, inner).forSequence();
        int toolCall = FIRST_SPECIAL + 2;
        // inside the block a call marker is thinking; the budget closes the block, and the marker then opens a call
        assertThat(run(c, toolCall, 4)).containsExactly(toolCall, toolCall, END_THINK, toolCall);
        float[] logits = new float[EOS + 1];
        c.mask(logits);
        assertThat(logits[HMM]).as("the call's grammar holds the output now").isEqualTo(Float.NEGATIVE_INFINITY);
    }

    @Test
    void aCopyGoesOnFromTheSameStateOnItsOwn() {
        TokenConstraint c = ThinkingBudget.factory(3, VOCABULARY, true, null).forSequence();
        run(c, HMM, 2);
        TokenConstraint copy = c.copy();
        assertThat(run(copy, HMM, 3)).containsExactly(HMM, END_THINK, HMM);
        assertThat(run(c, HMM, 3)).containsExactly(HMM, END_THINK, HMM);
    }

    // A JSON format under a thinking template: the thinking is free, the answer is held to the grammar.

    private static TokenConstraint.Factory anyObject() {
        return GrammarConstraint.factory(new GrammarCache(4, JsonSchemaCompiler.Options.DEFAULT).anyObject(), VOCABULARY);
    }

    private static boolean allowed(TokenConstraint c, int token) {
        float[] logits = new float[EOS + 1];
        c.mask(logits);
        return logits[token] != Float.NEGATIVE_INFINITY;
    }

    @Test
    void anAnswerFormatHoldsTheAnswerAfterABlockThePromptOpened() {
        TokenConstraint c = ThinkingBudget.answerFactory(Integer.MAX_VALUE, VOCABULARY, true, anyObject()).forSequence();
        for (int i = 0; i < 3; i++) {
            assertThat(allowed(c, HMM)).as("thinking is free").isTrue();
            c.accept(HMM);
        }
        c.accept(END_THINK);
        assertThat(allowed(c, HMM)).isFalse();
        assertThat(allowed(c, '{')).as("the answer opens the JSON at once").isTrue();
        assertThat(allowed(c, '\n')).isFalse();
    }

    @Test
    void anAnswerFormatClosesTheBlockInTimeForACompleteAnswer() {
        var answer = anyObject();
        int least = answer.tokensToComplete();
        var factory = ThinkingBudget.answerFactory(Integer.MAX_VALUE, VOCABULARY, true, answer);
        assertThat(factory.tokensToComplete()).as("the closing tag, then the answer").isEqualTo(least + 1);
        TokenConstraint c = factory.forSequence();
        int limit = 10;
        c.limit(limit);
        int[] taken = run(c, HMM, limit);
        int thinking = limit - 1 - least;
        for (int i = 0; i < thinking; i++) assertThat(taken[i]).isEqualTo(HMM);
        assertThat(taken[thinking]).isEqualTo(END_THINK);
        byte[] json = new byte[least];
        for (int i = 0; i < least; i++) json[i] = (byte) taken[thinking + 1 + i];
        assertThat(new String(json, StandardCharsets.UTF_8)).isEqualTo("{}");
    }

    @Test
    void anAnswerFormatLetsTheOutputOpenABlockOrAnswerAtOnce() {
        var factory = ThinkingBudget.answerFactory(Integer.MAX_VALUE, VOCABULARY, false, anyObject());
        TokenConstraint thinks = factory.forSequence();
        assertThat(allowed(thinks, THINK)).isTrue();
        assertThat(allowed(thinks, '{')).isTrue();
        assertThat(allowed(thinks, HMM)).isFalse();
        thinks.accept(THINK);
        assertThat(allowed(thinks, HMM)).isTrue();
        thinks.accept(HMM);
        thinks.accept(END_THINK);
        assertThat(allowed(thinks, HMM)).isFalse();
        assertThat(allowed(thinks, '{')).isTrue();

        TokenConstraint answers = factory.forSequence();
        answers.accept('{');
        assertThat(allowed(answers, '}')).isTrue();
        assertThat(allowed(answers, THINK)).isFalse();
    }

    @Test
    void anAnswerFormatWithThinkingOffStartsTheAnswerAtOnce() {
        TokenConstraint c = ThinkingBudget.answerFactory(0, VOCABULARY, false, anyObject()).forSequence();
        assertThat(allowed(c, THINK)).isFalse();
        assertThat(allowed(c, '{')).isTrue();
        // a block the prompt opened is closed at once
        TokenConstraint opened = ThinkingBudget.answerFactory(0, VOCABULARY, true, anyObject()).forSequence();
        assertThat(run(opened, HMM, 2)).containsExactly(END_THINK, '{');
    }

    @Test
    void anAnswerFormatCopiedInsideTheBlockGoesOnOnItsOwn() {
        TokenConstraint c = ThinkingBudget.answerFactory(2, VOCABULARY, true, anyObject()).forSequence();
        c.accept(HMM);
        TokenConstraint copy = c.copy();
        assertThat(run(copy, HMM, 3)).containsExactly(HMM, END_THINK, '{');
        assertThat(run(c, HMM, 3)).containsExactly(HMM, END_THINK, '{');
    }
}
