package dev.inferd.engine.batch;

import dev.inferd.engine.model.Model;

import java.util.function.BooleanSupplier;

/**
 * A throwaway sequence run through the model before the first request, so that the first request
 * finds the kernels compiled: until C2 has compiled them, the Vector API runs as Java code, and a
 * server's first 64-token request on a 1B model took 10.6 s against 5.4 s for the next ones. llama.cpp
 * runs a warm-up decode at start for its own reasons (page-in, caches); here it is the JIT's.
 *
 * <p>It runs on the scheduler thread, with a cache of its own, and stops between forward passes as
 * soon as a request is waiting, so a request that comes early waits for one pass at most. Outputs do
 * not depend on it: a pass gives the same bits interpreted and compiled ({@code InterpretedAndCompiledTest}).
 */
final class WarmUp {
    /** Prompt tokens, then generated tokens, of the throwaway sequence. */
    static final int PROMPT = 16;
    static final int GENERATED = 48;
    /**
     * Sequences that join the second half of the generated tokens, so that the kernels for a batch of
     * generated tokens compile too (two activation rows at a time, and the one left over): left for the
     * first concurrent requests, the two-row kernel ran as Java code for some 10 s of a load test.
     */
    static final int COMPANIONS = 2;

    private WarmUp() {
    }

    /** Runs the sequence, checking {@code stop} before every pass; returns the passes run. */
    static int run(Model model, BooleanSupplier stop) {
        int vocab = model.config().vocabSize();
        int promptLength = Math.min(PROMPT, model.maxBatch());
        int companions = Math.min(COMPANIONS, model.maxBatch() - 1);
        var cache = model.newKVCache(1 + companions, promptLength + GENERATED);
        int[] prompt = new int[promptLength];
        for (int i = 0; i < promptLength; i++) prompt[i] = (1 + 7 * i) % vocab;
        if (stop.getAsBoolean()) return 0;
        int token = model.forward(Batch.ofPrompt(0, 0, prompt), cache).argmax(0);
        int passes = 1;
        var next = new Batch(1 + companions);
        for (int i = 0; i < GENERATED && !stop.getAsBoolean(); i++, passes++) {
            next.clear();
            next.add(0, promptLength + i, token, true);
            if (i >= GENERATED / 2) {
                for (int c = 1; c <= companions; c++) next.add(c, i - GENERATED / 2, token, true);
            }
            token = model.forward(next, cache).argmax(0);
        }
        return passes;
    }
}
