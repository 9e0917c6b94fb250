package dev.inferd.server.http;

import dev.inferd.engine.chat.ChatFormat;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.generate.ChatMessage;
import dev.inferd.engine.generate.Generation;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.ModelDescription;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.grammar.TokenVocabulary;
import dev.inferd.engine.sample.TokenConstraint;

import java.util.List;

/**
 * A test hook in front of a model with random weights, which would rarely end its turn by itself: after
 * {@code tokens} generated tokens every sequence must take the end-of-sequence token, so a reply ends as a
 * real model's does (finish reason {@code stop}) without running to the end of the context.
 */
record EndsTurnAfter(TextGenerator model, int tokens, int endToken, List<String> prompts) implements TextGenerator {

    /** @param prompts receives the text of every rendered prompt (what the model was shown) */
    EndsTurnAfter {
    }

    EndsTurnAfter(TextGenerator model, int tokens, int endToken) {
        this(model, tokens, endToken, new java.util.concurrent.CopyOnWriteArrayList<>());
    }

    @Override
    public ModelDescription description() {
        return model.description();
    }

    @Override
    public int vocabularySize() {
        return model.vocabularySize();
    }

    @Override
    public int[] chatPrompt(List<ChatMessage> messages) {
        return model.chatPrompt(messages);
    }

    @Override
    public int[] chatPrompt(List<ChatMessage> messages, int maxTokens) {
        return model.chatPrompt(messages, maxTokens);
    }

    @Override
    public ChatFormat chatFormat() {
        return model.chatFormat();
    }

    @Override
    public int[] chatPrompt(RenderedPrompt prompt) {
        prompts.add(prompt.text());
        return model.chatPrompt(prompt);
    }

    @Override
    public int[] chatPrompt(RenderedPrompt prompt, int maxTokens) {
        prompts.add(prompt.text());
        return model.chatPrompt(prompt, maxTokens);
    }

    @Override
    public TokenVocabulary vocabulary() {
        return model.vocabulary();
    }

    @Override
    public int[] textPrompt(String prompt) {
        return model.textPrompt(prompt);
    }

    @Override
    public int[] textPrompt(String prompt, int maxTokens) {
        return model.textPrompt(prompt, maxTokens);
    }

    @Override
    public Generation submit(GenerationRequest r) {
        TokenConstraint.Factory inner = r.constraint();
        TokenConstraint.Factory ending = () -> new Ending(inner == null ? null : inner.forSequence());
        return model.submit(new GenerationRequest(r.prompt(), r.n(), r.maxTokens(), r.stop(), r.sampling(),
                r.logprobs(), ending, r.controlTokenText()));
    }

    @Override
    public void close() {
        model.close();
    }

    private final class Ending implements TokenConstraint {
        private final TokenConstraint inner;
        private int taken;

        Ending(TokenConstraint inner) {
            this.inner = inner;
        }

        @Override
        public void mask(float[] logits) {
            if (taken < tokens) {
                if (inner != null) inner.mask(logits);
                return;
            }
            java.util.Arrays.fill(logits, Float.NEGATIVE_INFINITY);
            logits[endToken] = 0f;
        }

        @Override
        public void accept(int token) {
            taken++;
            if (inner != null) inner.accept(token);
        }
    }
}
