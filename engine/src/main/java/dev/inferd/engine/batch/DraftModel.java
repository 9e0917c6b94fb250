package dev.inferd.engine.batch;

import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.model.Batch;
import dev.inferd.engine.model.Logits;
import dev.inferd.engine.model.Model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The draft model of a {@link Scheduler}: its own KV cache (same sequence ids as the target's, its
 * own pool and prefix cache), kept up with each sequence's tokens lazily, when the sequence drafts.
 * A draft of k tokens takes k passes of the draft model, each over every drafting sequence; the
 * positions the target rejects are cut from the draft's cache afterwards.
 */
final class DraftModel {
    private final Model model;
    private final KVCache cache;
    private final Batch batch;
    /** Per sequence id, the positions the draft's cache holds for that sequence's tokens. */
    private final int[] computed;
    /** The draft's logits laid over the target's vocabulary (ids beyond the draft's own never drafted). */
    private final float[] padded;
    private final int catchUpBudget;
    private final List<SequenceSlot> round = new ArrayList<>();
    private final List<Integer> rows = new ArrayList<>();

    private final float minProbability;
    /** Hears of the passes that hold one row per drafting sequence: what a pass of the draft costs. */
    private final DraftCost cost;

    DraftModel(Model model, Scheduler.Config config, int contextLength, int targetVocab, int maxDraft, float minProbability,
               DraftCost cost) {
        this.model = model;
        this.minProbability = minProbability;
        this.cost = cost;
        int sequences = config.sequences();
        // the target's positions, and room for every sequence's draft beyond them
        int blocks = config.blocks() + sequences * (Math.ceilDiv(maxDraft, config.blockSize()) + 1);
        this.cache = model.newKVCache(sequences, contextLength, config.blockSize(), blocks, config.stepTokens() + maxDraft,
                config.parallel());
        this.batch = new Batch(model.maxBatch());
        this.computed = new int[sequences];
        this.padded = new float[targetVocab];
        this.catchUpBudget = Math.max(1, model.maxBatch() - sequences);
    }

    static int batchFor(Scheduler.Config config) {
        return config.stepTokens() + config.sequences();
    }

    Model model() {
        return model;
    }

    /**
     * Proposes up to {@code slot.draftWanted} tokens for each slot into {@code slot.draft} and
     * {@code slot.draftCount}. A slot whose draft cache lags by more than a step's budget only catches
     * up this step (it drafts nothing).
     */
    void propose(List<SequenceSlot> slots) {
        batch.clear();
        round.clear();
        rows.clear();
        int budget = catchUpBudget;
        for (SequenceSlot s : slots) {
            s.draftCount = 0;
            s.draftDeclined = false;
            int seq = s.sequence;
            if (computed[seq] == 0 && cache.blockCount(seq) == 0) {
                computed[seq] = cache.attachCachedPrefix(seq, s.tokens(), s.size() - 1);
            }
            int from = computed[seq];
            int need = s.size() - from;
            if (need <= 0) { // cannot happen: the pending token is never in the draft's cache
                forget(seq);
                continue;
            }
            boolean whole = need <= budget;
            int count = whole ? need : budget;
            if (count == 0) continue;
            int reach = whole ? s.size() - 1 + s.draftWanted : from + count; // positions written this step
            if (!cache.ensureWritable(seq, from, reach)) continue;
            int promptLength = s.owner.request.prompt().length;
            int[] tokens = s.tokens();
            if (!inDraftVocabulary(tokens, from, from + count)) continue; // an id only the target's padding has
            for (int p = from; p < from + count; p++) {
                batch.add(seq, p, tokens[p], whole && p == s.size() - 1, p < promptLength);
            }
            budget -= count;
            computed[seq] = from + count;
            if (whole) {
                round.add(s);
                rows.add(batch.logitsCount() - 1);
            }
        }
        if (batch.isEmpty()) return;
        Logits logits = timedForward(round.size());
        List<SequenceSlot> drafting = new ArrayList<>();
        for (int i = 0; i < round.size(); i++) {
            SequenceSlot s = round.get(i);
            if (take(s, logits, rows.get(i))) drafting.add(s);
        }
        while (!drafting.isEmpty()) {
            batch.clear();
            List<SequenceSlot> next = new ArrayList<>();
            for (SequenceSlot s : drafting) {
                if (s.draftCount >= s.draftWanted) continue;
                int position = s.size() - 1 + s.draftCount;
                batch.add(s.sequence, position, s.draft[s.draftCount - 1], true, false);
                computed[s.sequence] = position + 1;
                next.add(s);
            }
            if (next.isEmpty()) break;
            logits = timedForward(next.size());
            drafting.clear();
            for (int i = 0; i < next.size(); i++) {
                if (take(next.get(i), logits, i)) drafting.add(next.get(i));
            }
        }
        for (SequenceSlot s : round) s.owner.request.endDraft(s.choice);
    }

    /** The batch through the draft model; a pass of {@code sequences} rows, one a sequence, is timed for {@link #cost}. */
    private Logits timedForward(int sequences) {
        boolean oneRowEach = batch.size() == sequences;
        long start = System.nanoTime();
        Logits logits = model.forward(batch, cache);
        if (oneRowEach) cost.draftPass(sequences, System.nanoTime() - start);
        return logits;
    }

    private boolean inDraftVocabulary(int[] tokens, int from, int to) {
        int vocab = model.config().vocabSize();
        for (int p = from; p < to; p++) if (tokens[p] >= vocab) return false;
        return true;
    }

    /**
     * The slot's next draft token from logits row {@code row}; false when the slot's draft ends here. A draft
     * that ends before its first token (the draft model not confident enough) marks the slot
     * {@link SequenceSlot#draftDeclined}.
     */
    private boolean take(SequenceSlot s, Logits logits, int row) {
        int token;
        if (logits.vocabSize() >= padded.length) { // the target's vocabulary at the row's start: read in place
            token = s.owner.request.draft(s.choice, s.draftCount, logits.data(), logits.offset(row), minProbability);
        } else {
            int vocab = logits.vocabSize();
            System.arraycopy(logits.data(), logits.offset(row), padded, 0, vocab);
            Arrays.fill(padded, vocab, padded.length, Float.NEGATIVE_INFINITY);
            token = s.owner.request.draft(s.choice, s.draftCount, padded, 0, minProbability);
        }
        if (token < 0) {
            if (s.draftCount == 0) s.draftDeclined = true;
            return false;
        }
        s.draft[s.draftCount++] = token;
        return s.draftCount < s.draftWanted;
    }

    /** After verification: the sequence's first {@code keep} positions stand, the rest of the draft's cache goes. */
    void rollBack(SequenceSlot s, int keep) {
        int seq = s.sequence;
        if (computed[seq] > keep) {
            computed[seq] = keep;
            cache.truncate(seq, keep);
        }
        cache.commitFullBlocks(seq, s.tokens());
        cache.releaseOutsideWindows(seq);
    }

    /** The sequence id is free: drop what the draft held of it (full blocks stay in its prefix cache). */
    void forget(int sequence) {
        cache.clear(sequence);
        computed[sequence] = 0;
    }
}
