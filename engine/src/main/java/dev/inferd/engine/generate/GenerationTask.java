package dev.inferd.engine.generate;

import dev.inferd.engine.batch.ScheduledRequest;
import dev.inferd.engine.sample.Sampler;
import dev.inferd.engine.sample.TokenConstraint;
import dev.inferd.engine.tokenizer.Tokenizer;

/**
 * One {@link GenerationRequest} as the scheduler runs it: per choice a seeded sampler and the text
 * released so far, the stop, end-of-generation, length and context rules, and the events of its
 * {@link Generation}. The scheduler thread calls it; the caller reads the {@link Generation}.
 */
final class GenerationTask implements ScheduledRequest {
    private final GenerationRequest request;
    private final Generation generation;
    private final Tokenizer tokenizer;
    private final int vocabSize;
    private final int contextLength;
    private final Choice[] choices;
    private final LogprobReporter logprobs;

    GenerationTask(GenerationRequest request, Generation generation, Tokenizer tokenizer, int vocabSize,
                   int contextLength) {
        this.request = request;
        this.generation = generation;
        this.tokenizer = tokenizer;
        this.vocabSize = vocabSize;
        this.contextLength = contextLength;
        this.choices = new Choice[request.n()];
        long seed = request.sampling().seed() != null ? request.sampling().seed() : System.nanoTime();
        for (int i = 0; i < choices.length; i++) {
            TokenConstraint constraint = request.constraint() != null ? request.constraint().forSequence() : null;
            if (constraint != null) constraint.limit(Math.min(request.maxTokens(), contextLength - request.prompt().length));
            choices[i] = new Choice(i, new Sampler(request.sampling(), vocabSize, seed + i, constraint),
                    new ChoiceText(request.stop()));
        }
        this.logprobs = request.wantsLogprobs() ? new LogprobReporter(tokenizer, request.logprobs()) : null;
    }

    @Override public int[] prompt() { return request.prompt(); }

    @Override public int choices() { return choices.length; }

    @Override
    public boolean isCancelled() {
        return generation.isCancelled();
    }

    @Override
    public int next(int choice, float[] logits, int offset) {
        Choice c = choices[choice];
        int token = c.sampler.sample(logits, offset);
        return accept(c, token, logits, offset) ? token : -1;
    }

    @Override
    public int draft(int choice, int index, float[] logits, int offset, float minProbability) {
        Choice c = choices[choice];
        if (index == 0) c.sampler.beginDraft();
        float[] q = null;
        if (!request.sampling().greedy()) {
            if (c.draftDistributions == null || c.draftDistributions.length <= index) {
                float[][] grown = new float[Math.max(index + 1, 4)][];
                if (c.draftDistributions != null) System.arraycopy(c.draftDistributions, 0, grown, 0, c.draftDistributions.length);
                c.draftDistributions = grown;
            }
            if (c.draftDistributions[index] == null) c.draftDistributions[index] = new float[vocabSize];
            q = c.draftDistributions[index];
        }
        return c.sampler.draft(logits, offset, q, minProbability);
    }

    @Override
    public void endDraft(int choice) {
        choices[choice].sampler.endDraft();
    }

    @Override
    public int verify(int choice, int index, int draftToken, float[] logits, int offset) {
        Choice c = choices[choice];
        if (request.sampling().greedy()) return next(choice, logits, offset);
        int token = c.sampler.verify(logits, offset, draftToken, c.draftDistributions[index]);
        return accept(c, token, logits, offset) ? token : -1;
    }

    @Override
    public int tokensLeft(int choice) {
        return Math.max(0, request.maxTokens() - choices[choice].generated);
    }

    @Override
    public void truncate(int choice) {
        Choice c = choices[choice];
        if (!c.finished) finish(c, FinishReason.LENGTH);
    }

    @Override
    public void complete(int cachedPromptTokens, Throwable failure) {
        if (failure != null) {
            generation.fail(failure);
            return;
        }
        int completion = 0;
        for (Choice c : choices) completion += c.generated;
        generation.end(new GenerationResult(request.prompt().length, completion, cachedPromptTokens));
    }

    /**
     * Handles a sampled token: text out, stop and length checks.
     *
     * @return whether the choice goes on (the token must then be fed back)
     */
    private boolean accept(Choice c, int token, float[] logits, int offset) {
        if (tokenizer.isEndOfGeneration(token)) {
            finish(c, FinishReason.STOP);
            return false;
        }
        int position = request.prompt().length + c.generated; // where this token's keys and values go
        c.generated++;
        c.sampler.accept(token);
        TokenLogprob lp = logprobs != null ? logprobs.report(token, logits, offset, vocabSize) : null;
        ChoiceText.Release release = c.text.add(textBytes(token), lp);
        emit(c, release);
        if (release.stopped()) {
            finishWithoutFlush(c, FinishReason.STOP, release.stopSequence());
            return false;
        }
        boolean roomForNext = position + 1 < contextLength;
        if (c.generated >= request.maxTokens() || !roomForNext) {
            finish(c, FinishReason.LENGTH);
            return false;
        }
        return true;
    }

    /** The token's text; a control token has none unless the request keeps its text (a tool-call marker). */
    private byte[] textBytes(int token) {
        if (!request.controlTokenText().isEmpty() && tokenizer.isControl(token)) {
            String text = tokenizer.tokenText(token);
            if (request.controlTokenText().contains(text)) return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        return tokenizer.tokenBytes(token);
    }

    private void finish(Choice c, FinishReason reason) {
        emit(c, c.text.flush());
        finishWithoutFlush(c, reason, null);
    }

    private void finishWithoutFlush(Choice c, FinishReason reason, String stopSequence) {
        c.finished = true;
        generation.finish(c.index, reason, stopSequence);
    }

    private void emit(Choice c, ChoiceText.Release release) {
        if (!release.text().isEmpty() || !release.tokens().isEmpty()) {
            generation.text(c.index, release.text(), release.tokens());
        }
    }

    private static final class Choice {
        final int index;
        final Sampler sampler;
        final ChoiceText text;
        int generated;
        boolean finished;
        /** The draft's distribution per draft position, for speculative sampling (not greedy). */
        float[][] draftDistributions;

        Choice(int index, Sampler sampler, ChoiceText text) {
            this.index = index;
            this.sampler = sampler;
            this.text = text;
        }
    }
}
