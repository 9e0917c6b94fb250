package dev.inferd.engine.batch;

import dev.inferd.engine.model.Batch;
import dev.inferd.engine.kvcache.KVCache;

import dev.inferd.engine.model.Logits;
import dev.inferd.engine.model.Model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Continuous batching: one thread owns the model and the KV cache and runs steps. Each step is one
 * forward pass holding the next token of every decoding sequence plus chunks of pending prompts, up
 * to {@link Config#stepTokens()} prompt positions, so a long prompt delays the other streams by one
 * chunk at most. Requests join between steps (from a bounded queue) and leave when their last choice
 * ends or they are cancelled; their blocks go back to the pool at once.
 *
 * <p>Prompts that arrive together often share a prefix no earlier request left in the cache (a
 * chat template's header, an application's system prompt). A prompt that has computed nothing of its
 * own waits while an older one computes at least a block's worth of their common prefix, then takes it
 * from the cache like any cached prefix (to the token): the prefix is computed once, not once per
 * request. It waits for prompt positions only (never for another sequence's generated tokens), and
 * the blocks it takes hold the bits it would have computed (the prompt path is batch-invariant).
 *
 * <p>Memory: KV blocks come only from the pool. A request is admitted when the pool can hold its
 * prompt; if the pool runs dry later, the youngest sequence is preempted: its blocks are released
 * (its full blocks stay in the prefix cache) and it is paused, to be recomputed from its tokens when
 * blocks are free again. Paused sequences resume, oldest first, before any new request is admitted.
 * Recomputing gives the same keys and values bit for bit (the kernels are batch-invariant), so a
 * preempted sequence continues exactly as it would have.
 *
 * <p>Speculation ({@link Speculation}): a decoding sequence may bring a draft, tokens proposed by a
 * draft model or found by prompt lookup; the step then holds its pending token and the draft as rows
 * of that sequence, each wanting logits. The request chooses a token at each row in turn
 * ({@link ScheduledRequest#verify}) until one differs from the draft: those tokens are kept, the
 * cache positions of the rest are cut off ({@link KVCache#truncate}) before any block of them reaches
 * the prefix cache. A row's logits are what a step of that one token would have given (batch
 * invariance), so greedy output is the same token for token with or without drafts. A draft model drafts
 * only at steps where its drafts can pay, which the scheduler judges from the times of its own steps and of
 * the draft model's passes ({@link DraftCost}); how long each sequence's drafts are follows their acceptance
 * ({@link DraftLength}).
 */
public final class Scheduler implements AutoCloseable {

    /**
     * @param parallel sequences decoded together; one request with more choices than this runs alone
     * @param maxQueued requests that may wait for admission; beyond that {@link #submit} refuses
     * @param stepTokens prompt positions per step (besides one position per decoding sequence)
     * @param maxChoices the most choices one request may have
     * @param blockSize positions per KV block
     * @param blocks KV blocks in the pool
     */
    public record Config(int parallel, int maxQueued, int stepTokens, int maxChoices, int blockSize, int blocks) {
        public Config {
            if (parallel < 1 || maxQueued < 0 || stepTokens < 1 || maxChoices < 1 || blockSize < 1 || blocks < 1) {
                throw new IllegalArgumentException("invalid scheduler configuration " + this);
            }
        }

        /** Sequence ids the cache needs: every admitted choice holds one. */
        public int sequences() {
            return Math.max(parallel, maxChoices);
        }

        /** The largest batch a step builds. */
        public int maxBatch() {
            return stepTokens + sequences();
        }
    }

    private final Model model;
    private final KVCache cache;
    private final Config config;
    private final Batch batch;
    private final Thread thread;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workArrived = lock.newCondition();
    private final ArrayDeque<ScheduledRequest> waiting = new ArrayDeque<>(); // guarded by lock
    private boolean closed;                                                   // guarded by lock

    // Owned by the scheduler thread.
    private final List<RequestState> running = new ArrayList<>();
    private final List<SequenceSlot> paused = new ArrayList<>(); // oldest first
    private final ArrayDeque<Integer> freeSequences = new ArrayDeque<>();
    private final List<Item> plan = new ArrayList<>();
    private long admissions;
    private long promptTokensProcessed;
    private long cachedPromptTokens;
    private long tokensGenerated;
    private long preemptions;
    private long steps;
    private long draftTokens;
    private long acceptedDraftTokens;
    private final Speculation speculation;
    /** Whether sequences draft (on when the speculation is enabled; a benchmark turns it off and on to compare). */
    private volatile boolean speculating = true;
    /** The draft model's runner, or null. */
    private final DraftModel draftModel;
    /** What steps and the draft model's passes cost: whether a draft model's drafts can pay (null without one). */
    private final DraftCost draftCost;

    private final AtomicLong rejected = new AtomicLong();
    /** Completed with what the warm-up ran once it is over (run through, stopped early or failed). */
    private final CompletableFuture<WarmUp.Report> warmedUp = new CompletableFuture<>();
    private volatile SchedulerStats published;
    private volatile double secondsPerRequest = 1.0;

    /**
     * A slot's share of one step: positions {@code from .. from + count - 1}, of which the last
     * {@code drafts} hold its draft.
     */
    private record Item(SequenceSlot slot, int from, int count, int drafts) {
    }

    /** Takes over {@code model}: from now on only the scheduler thread runs it. */
    public Scheduler(Model model, int contextLength, Config config) {
        this(model, contextLength, config, Speculation.NONE);
    }

    /**
     * Takes over {@code model} and the draft model of {@code speculation}: from now on only the
     * scheduler thread runs them. The draft model must take batches of {@link #draftBatch}.
     */
    public Scheduler(Model model, int contextLength, Config config, Speculation speculation) {
        int batchSize = speculation.targetBatch(config);
        if (model.maxBatch() < batchSize) {
            throw new IllegalArgumentException("the model takes batches of " + model.maxBatch() + ", the scheduler builds up to "
                    + batchSize);
        }
        if (speculation.draft() != null && speculation.draft().maxBatch() < draftBatch(config)) {
            throw new IllegalArgumentException("the draft model takes batches of " + speculation.draft().maxBatch()
                    + ", the scheduler builds up to " + draftBatch(config));
        }
        this.model = model;
        this.config = config;
        this.speculation = speculation;
        int maxWrite = config.stepTokens() + speculation.maxDraft();
        this.cache = model.newKVCache(config.sequences(), contextLength, config.blockSize(), config.blocks(), maxWrite,
                config.parallel());
        this.draftCost = speculation.draft() == null ? null : new DraftCost(config.sequences(), speculation.draftRatio());
        this.draftModel = speculation.draft() == null ? null
                : new DraftModel(speculation.draft(), config, contextLength, model.config().vocabSize(), speculation.maxDraft(),
                        speculation.minProbability(), draftCost);
        this.batch = new Batch(batchSize);
        for (int s = 0; s < config.sequences(); s++) freeSequences.add(s);
        publish();
        thread = Thread.ofPlatform().name("inferd-scheduler").daemon(true).unstarted(this::run);
        thread.start();
    }

    public Config config() {
        return config;
    }

    /** Turns drafting on or off for the steps to come (it is on from the start where {@link Speculation#enabled}). */
    public void setSpeculating(boolean speculating) {
        this.speculating = speculating;
    }

    /** The batch a draft model under a scheduler of {@code config} must take. */
    public static int draftBatch(Config config) {
        return DraftModel.batchFor(config);
    }

    /**
     * Rejects a request that could never run, even alone: its prompt plus {@code maxTokens} (within
     * the context) need more KV blocks than the pool has.
     */
    public void checkFits(int promptTokens, int maxTokens) {
        long positions = Math.min((long) promptTokens + maxTokens, cache.contextLength());
        long blocks = Math.ceilDiv(positions, config.blockSize());
        if (blocks > config.blocks()) {
            throw new IllegalArgumentException("the prompt's " + promptTokens + " tokens plus up to " + maxTokens
                    + " generated tokens need " + blocks + " KV cache blocks of " + config.blockSize()
                    + " positions; the server's KV memory holds " + config.blocks() + " (" + config.blocks() * (long) config.blockSize()
                    + " positions): shorten the prompt or ask for fewer tokens");
        }
    }

    /**
     * Queues a request; its callbacks then come from the scheduler thread.
     *
     * @return false when the queue is full (nothing was queued)
     * @throws IllegalStateException when the scheduler is closed
     */
    public boolean submit(ScheduledRequest request) {
        if (request.choices() > config.maxChoices()) {
            throw new IllegalArgumentException("n is at most " + config.maxChoices());
        }
        lock.lock();
        try {
            if (closed) throw new IllegalStateException("the model is closed");
            if (waiting.size() >= config.maxQueued()) {
                rejected.incrementAndGet();
                return false;
            }
            waiting.add(request);
            workArrived.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** A guess at how long until a refused request would be admitted, in whole seconds (1 to 60). */
    public int retryAfterSeconds() {
        int queued = queued();
        double estimate = secondsPerRequest * (queued + 1) / config.parallel();
        return (int) Math.max(1, Math.min(60, Math.ceil(estimate)));
    }

    /**
     * Completes with what the warm-up ran once it is over: from then on a request runs the kernels
     * compiled. A request queued earlier stops the warm-up and runs at once, slower.
     */
    public CompletableFuture<WarmUp.Report> warmedUp() {
        return warmedUp.copy();
    }

    /** The latest figures (as of the last step). */
    public SchedulerStats stats() {
        SchedulerStats s = published;
        return new SchedulerStats(queued(), s.runningRequests(), s.activeSequences(), s.pausedSequences(),
                s.kvBlocksTotal(), s.kvBlocksUsed(), s.kvBlocksCached(), s.kvBlockSize(), s.kvBlockBytes(),
                s.promptTokensProcessed(), s.cachedPromptTokens(), s.tokensGenerated(), s.preemptions(),
                rejected.get(), s.steps(), s.draftTokens(), s.acceptedDraftTokens());
    }

    private int queued() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    /** Stops the thread; requests still queued or running fail with an {@link IllegalStateException}. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            workArrived.signal();
        } finally {
            lock.unlock();
        }
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    // ---- the scheduler thread ----

    private void run() {
        WarmUp.Report report = WarmUp.Report.NONE;
        try {
            report = WarmUp.run(model, this::requestWaitingOrClosed);
            if (draftModel != null) report = report.plus(WarmUp.run(draftModel.model(), this::requestWaitingOrClosed));
        } catch (RuntimeException e) {
            // the warm-up only speeds up what follows; requests run whether it worked or not
        } finally {
            warmedUp.complete(report);
        }
        while (awaitWork()) {
            try {
                step();
            } catch (Throwable t) {
                // A bug in the bookkeeping: fail what runs rather than loop on it.
                for (RequestState r : List.copyOf(running)) fail(r, t);
            }
            publish();
        }
        var error = new IllegalStateException("the model is closed");
        for (RequestState r : List.copyOf(running)) fail(r, error);
        List<ScheduledRequest> left;
        lock.lock();
        try {
            left = List.copyOf(waiting);
            waiting.clear();
        } finally {
            lock.unlock();
        }
        for (ScheduledRequest q : left) q.complete(0, error);
    }

    private boolean requestWaitingOrClosed() {
        lock.lock();
        try {
            return closed || !waiting.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    private boolean awaitWork() {
        lock.lock();
        try {
            while (!closed && waiting.isEmpty() && running.isEmpty()) workArrived.awaitUninterruptibly();
            return !closed;
        } finally {
            lock.unlock();
        }
    }

    private void step() {
        dropCancelled();
        admit();
        attachPrefixesComputedMeanwhile();
        List<SequenceSlot> drafting;
        try {
            drafting = proposeDrafts();
        } catch (RuntimeException | Error e) {
            for (RequestState r : List.copyOf(running)) fail(r, e);
            return;
        }
        planStep();
        dropDraftsLeftOut(drafting);
        if (plan.isEmpty()) return;
        Logits logits;
        try {
            buildBatch();
            long start = System.nanoTime();
            logits = model.forward(batch, cache);
            if (draftCost != null) timeStep(System.nanoTime() - start);
        } catch (RuntimeException | Error e) {
            for (Item item : plan) if (running.contains(item.slot().owner)) fail(item.slot().owner, e);
            return;
        }
        steps++;
        int entry = 0;
        for (Item item : plan) {
            SequenceSlot slot = item.slot();
            int firstEntry = entry;
            entry += item.count();
            if (slot.state != SequenceSlot.State.ACTIVE) continue; // its request failed meanwhile
            if (item.drafts() > 0) {
                try {
                    verify(slot, item, logits, batch.logitsRow(firstEntry));
                } catch (RuntimeException | Error e) {
                    fail(slot.owner, e);
                }
                continue;
            }
            slot.computed += item.count();
            cache.commitFullBlocks(slot.sequence, slot.tokens());
            cache.releaseOutsideWindows(slot.sequence);
            if (slot.pending() == 0) {
                int row = batch.logitsRow(entry - 1);
                try {
                    deliver(slot, logits.data(), logits.offset(row));
                } catch (RuntimeException | Error e) {
                    fail(slot.owner, e);
                }
            }
        }
        for (RequestState r : List.copyOf(running)) if (r.allDone()) finish(r, null);
    }

    /** Tells {@link #draftCost} what the step just run took, if it held decoding sequences (and their drafts) only. */
    private void timeStep(long nanos) {
        int decodeRows = 0;
        int draftRows = 0;
        for (Item item : plan) {
            boolean decoding = item.count() - item.drafts() == 1 && item.from() == item.slot().size() - 1;
            if (!decoding) return; // prompt positions (or recomputed ones) cost something else
            decodeRows++;
            draftRows += item.drafts();
        }
        draftCost.targetStep(decodeRows, draftRows, nanos);
    }

    /**
     * The sequences that decode this step with a draft, each with {@code draft[0..draftCount)} filled:
     * the draft length follows the sequence's acceptance and the number of decoding sequences.
     */
    private List<SequenceSlot> proposeDrafts() {
        if (!speculation.enabled() || !speculating) return List.of();
        List<SequenceSlot> decoding = new ArrayList<>();
        for (RequestState r : running) {
            if (!r.forked) continue;
            for (SequenceSlot s : r.slots) if (s.state == SequenceSlot.State.ACTIVE && s.pending() == 1) decoding.add(s);
        }
        List<SequenceSlot> drafting = new ArrayList<>();
        // a draft model drafts only where it can pay at this many sequences: otherwise the step decodes without drafts
        if (draftModel != null && !speculation.draftAlways() && !draftCost.pays(decoding.size())) {
            for (SequenceSlot s : decoding) s.draftCount = 0;
            return drafting;
        }
        int maxDraft = speculation.maxDraft();
        for (SequenceSlot s : decoding) {
            s.draftCount = 0;
            if (s.draftLength == null) {
                s.draftLength = draftModel != null ? DraftLength.forDraftModel() : DraftLength.forPromptLookup();
                s.draft = new int[maxDraft];
            }
            boolean givenUp = s.draftLength.givenUp();
            int k = s.draftLength.next(maxDraft, decoding.size(), s.owner.request.tokensLeft(s.choice));
            // too few tokens left for another probe: the draft's positions go back to its pool
            if (!givenUp && s.draftLength.givenUp() && draftModel != null) draftModel.forget(s.sequence);
            // the pending token and k drafts give up to k + 1 tokens, at positions size-1 .. size-1+k
            k = Math.min(k, s.owner.request.tokensLeft(s.choice) - 1);
            k = Math.min(k, cache.contextLength() - s.size());
            s.draftWanted = Math.max(0, k);
            if (s.draftWanted > 0) drafting.add(s);
        }
        if (drafting.isEmpty()) return drafting;
        if (draftModel != null) {
            draftModel.propose(drafting);
            // a pass of the draft model spent without a draft: a failed attempt (prompt lookup finding nothing costs
            // nothing); what the draft computed stands, and its full blocks go to the draft's prefix cache
            for (SequenceSlot s : drafting) {
                if (!s.draftDeclined) continue;
                s.draftLength.observe(0, 0, maxDraft);
                draftModel.rollBack(s, s.size());
                if (s.draftLength.givenUp()) draftModel.forget(s.sequence);
            }
        } else {
            for (SequenceSlot s : drafting) s.draftCount = PromptLookup.propose(s.tokens(), s.size(), s.draftWanted, s.draft);
        }
        drafting.removeIf(s -> s.draftCount == 0);
        return drafting;
    }

    /** Drafts of sequences the plan left out (paused for memory, or their draft had no room): their draft cache goes back. */
    private void dropDraftsLeftOut(List<SequenceSlot> drafting) {
        for (SequenceSlot s : drafting) {
            boolean planned = false;
            for (Item item : plan) if (item.slot() == s && item.drafts() > 0) planned = true;
            if (planned) continue;
            s.draftCount = 0;
            if (draftModel != null && s.state != SequenceSlot.State.DONE) draftModel.rollBack(s, s.size());
        }
    }

    /**
     * The target's logits for a slot's pending token and its draft, rows {@code firstRow ..}: chooses
     * tokens in turn while they equal the draft's, keeps them, and cuts the rejected positions off.
     */
    private void verify(SequenceSlot slot, Item item, Logits logits, int firstRow) {
        int drafts = item.drafts();
        ScheduledRequest request = slot.owner.request;
        int start = slot.computed;
        int accepted = 0;
        boolean ended = false;
        for (int j = 0; j <= drafts; j++) {
            int draftToken = j < drafts ? slot.draft[j] : -1;
            int row = firstRow + j;
            tokensGenerated++;
            int token = draftToken >= 0 && draftModel != null
                    ? request.verify(slot.choice, j, draftToken, logits.data(), logits.offset(row))
                    : request.next(slot.choice, logits.data(), logits.offset(row));
            if (token < 0) {
                ended = true;
                break;
            }
            slot.append(token);
            if (token != draftToken) break;
            accepted++;
        }
        draftTokens += drafts;
        acceptedDraftTokens += accepted;
        slot.draftCount = 0;
        if (ended) {
            done(slot);
            return;
        }
        slot.draftLength.observe(drafts, accepted, speculation.maxDraft());
        slot.computed = start + 1 + accepted;
        cache.truncate(slot.sequence, slot.computed);
        cache.commitFullBlocks(slot.sequence, slot.tokens());
        cache.releaseOutsideWindows(slot.sequence);
        if (draftModel != null) {
            draftModel.rollBack(slot, slot.computed);
            // a draft given up never runs for this sequence again: its positions go back to the draft's pool
            if (slot.draftLength.givenUp()) draftModel.forget(slot.sequence);
        }
    }

    private void dropCancelled() {
        for (RequestState r : List.copyOf(running)) {
            if (r.request.isCancelled()) finish(r, null);
        }
        List<ScheduledRequest> gone = new ArrayList<>();
        lock.lock();
        try {
            waiting.removeIf(q -> q.isCancelled() && gone.add(q));
        } finally {
            lock.unlock();
        }
        for (ScheduledRequest q : gone) q.complete(0, null);
    }

    private void admit() {
        while (!paused.isEmpty()) {
            SequenceSlot s = paused.getFirst();
            if (liveHolders() > 0 && cache.availableBlocks() < cache.blocksFor(s.size())) return;
            paused.removeFirst();
            int hit = cache.attachCachedPrefix(s.sequence, s.tokens(), s.size() - 1);
            s.computed = hit;
            s.state = SequenceSlot.State.ACTIVE;
        }
        while (true) {
            ScheduledRequest next;
            lock.lock();
            try {
                next = waiting.peek();
                if (next == null) return;
                int live = liveSequences();
                if (live > 0 && live + next.choices() > config.parallel()) return;
                if (live > 0 && cache.availableBlocks() < cache.blocksFor(next.prompt().length) + 1) return;
                waiting.poll();
            } finally {
                lock.unlock();
            }
            start(next);
        }
    }

    private void start(ScheduledRequest request) {
        var r = new RequestState(request, System.nanoTime());
        long age = (admissions++) * (config.maxChoices() + 1L);
        for (int c = 0; c < r.slots.length; c++) {
            r.slots[c] = new SequenceSlot(r, c, freeSequences.remove(), age + c,
                    c == 0 ? SequenceSlot.State.ACTIVE : SequenceSlot.State.WAITING_FOR_FORK);
        }
        int[] prompt = request.prompt();
        SequenceSlot first = r.slots[0];
        first.setTokens(prompt, prompt.length);
        // The last prompt token always runs: its logits start the generation.
        int hit = cache.attachCachedPrefix(first.sequence, prompt, prompt.length - 1);
        first.computed = hit;
        first.fresh = true;
        r.cachedPromptTokens = hit;
        cachedPromptTokens += hit;
        running.add(r);
    }

    /** Slots that waited in the last step for an older prompt's prefix: what the cache holds of theirs now. */
    private void attachPrefixesComputedMeanwhile() {
        for (RequestState r : running) {
            SequenceSlot s = r.slots[0];
            if (!s.awaitingPrefix) continue;
            s.awaitingPrefix = false;
            if (s.state != SequenceSlot.State.ACTIVE || !s.fresh) continue;
            cache.clear(s.sequence); // its blocks stay cached: attaching takes them back
            int hit = cache.attachCachedPrefix(s.sequence, s.tokens(), s.size() - 1);
            cachedPromptTokens += hit - r.cachedPromptTokens;
            r.cachedPromptTokens = hit;
            s.computed = hit;
        }
    }

    /**
     * Whether an older active prompt is still computing at least a block's worth of positions that
     * {@code s}'s prompt shares with it: then {@code s} is better off taking them from the cache once
     * they are there. The older prompt's block that holds the end of the common part counts too (it
     * is copied to the token once full), unless that prompt ends inside it.
     */
    private boolean olderPromptComputesSharedPrefix(SequenceSlot s, List<SequenceSlot> active) {
        if (!s.fresh) return false;
        int blockSize = config.blockSize();
        for (SequenceSlot t : active) {
            if (t.age >= s.age || t.state != SequenceSlot.State.ACTIVE) continue;
            int promptLength = t.owner.request.prompt().length;
            if (t.computed >= promptLength) continue;
            int limit = Math.min(s.size() - 1, promptLength);
            if (limit - s.computed < blockSize) continue;
            int shared = Arrays.mismatch(s.tokens(), 0, limit, t.tokens(), 0, limit);
            if (shared < 0) shared = limit;
            int ready = Math.min(Math.ceilDiv(shared, blockSize) * blockSize, promptLength);
            if (shared - s.computed >= blockSize && t.computed < ready) return true;
        }
        return false;
    }

    /** Decoding sequences first (one position each), then prompt chunks, oldest first in both. */
    private void planStep() {
        plan.clear();
        List<SequenceSlot> active = new ArrayList<>();
        for (RequestState r : running) {
            for (SequenceSlot s : r.slots) if (s.state == SequenceSlot.State.ACTIVE) active.add(s);
        }
        int decoding = 0;
        for (SequenceSlot s : active) if (s.pending() == 1) decoding += 1 + s.draftCount;
        int promptBudget = Math.max(config.stepTokens() - decoding, 1);
        promptBudget = Math.min(promptBudget, config.stepTokens());
        for (boolean decodePass : new boolean[] {true, false}) {
            for (SequenceSlot s : active) {
                if (s.state != SequenceSlot.State.ACTIVE || (s.pending() == 1) != decodePass) continue;
                if (!decodePass && olderPromptComputesSharedPrefix(s, active)) {
                    s.awaitingPrefix = true;
                    continue;
                }
                int count = decodePass ? 1 : Math.min(s.pending(), promptBudget);
                int drafts = decodePass ? s.draftCount : 0;
                // a draft's positions never preempt anyone: without room the sequence decodes its one token
                if (drafts > 0 && !cache.ensureWritable(s.sequence, s.computed, s.computed + 1 + drafts)) drafts = 0;
                if (count == 0 || !reserve(s, count)) continue;
                plan.add(new Item(s, s.computed, count + drafts, drafts));
                s.fresh = false;
                if (!decodePass) promptBudget -= count;
            }
        }
    }

    /** Blocks for a slot's next {@code count} positions, preempting younger sequences if need be. */
    private boolean reserve(SequenceSlot slot, int count) {
        while (!cache.ensureWritable(slot.sequence, slot.computed, slot.computed + count)) {
            SequenceSlot victim = youngestHolder(slot);
            if (victim != null && victim.age > slot.age) {
                pause(victim);
            } else if (victim != null) {
                pause(slot); // it is the youngest itself: older sequences go first
                return false;
            } else {
                // Alone and still too big: only possible for a request that skipped checkFits.
                slot.owner.request.truncate(slot.choice);
                done(slot);
                return false;
            }
        }
        return true;
    }

    private SequenceSlot youngestHolder(SequenceSlot except) {
        SequenceSlot youngest = null;
        for (RequestState r : running) {
            for (SequenceSlot s : r.slots) {
                if (s == except || s.state != SequenceSlot.State.ACTIVE || cache.blockCount(s.sequence) == 0) continue;
                if (youngest == null || s.age > youngest.age) youngest = s;
            }
        }
        return youngest;
    }

    private void pause(SequenceSlot slot) {
        cache.clear(slot.sequence);
        slot.computed = 0;
        slot.fresh = false;
        slot.state = SequenceSlot.State.PAUSED;
        plan.removeIf(item -> item.slot() == slot);
        int at = 0;
        while (at < paused.size() && paused.get(at).age < slot.age) at++;
        paused.add(at, slot);
        preemptions++;
    }

    private void buildBatch() {
        batch.clear();
        for (Item item : plan) {
            SequenceSlot s = item.slot();
            int promptLength = s.owner.request.prompt().length;
            int[] tokens = s.tokens();
            int end = item.from() + item.count() - item.drafts();
            for (int p = item.from(); p < end; p++) {
                boolean promptToken = p < promptLength;
                batch.add(s.sequence, p, tokens[p], p == s.size() - 1, promptToken);
                if (promptToken) promptTokensProcessed++;
            }
            for (int j = 0; j < item.drafts(); j++) batch.add(s.sequence, end + j, s.draft[j], true, false);
        }
    }

    /** Logits for a slot's last token: the first ones fork the request's choices. */
    private void deliver(SequenceSlot slot, float[] logits, int offset) {
        RequestState r = slot.owner;
        if (!r.forked) {
            r.forked = true;
            for (int c = 1; c < r.slots.length; c++) {
                SequenceSlot s = r.slots[c];
                cache.copy(slot.sequence, s.sequence, slot.computed);
                s.setTokens(slot.tokens(), slot.size());
                s.computed = slot.computed;
                s.state = SequenceSlot.State.ACTIVE;
            }
            for (SequenceSlot s : r.slots) feed(s, logits, offset);
        } else {
            feed(slot, logits, offset);
        }
    }

    private void feed(SequenceSlot slot, float[] logits, int offset) {
        tokensGenerated++;
        int token = slot.owner.request.next(slot.choice, logits, offset);
        if (token < 0) {
            done(slot);
        } else {
            slot.append(token);
        }
    }

    private void done(SequenceSlot slot) {
        if (slot.state == SequenceSlot.State.DONE) return;
        if (slot.state == SequenceSlot.State.PAUSED) paused.remove(slot);
        cache.clear(slot.sequence);
        if (draftModel != null) draftModel.forget(slot.sequence);
        slot.state = SequenceSlot.State.DONE;
        freeSequences.add(slot.sequence);
    }

    private void finish(RequestState r, Throwable failure) {
        if (!running.remove(r)) return;
        for (SequenceSlot s : r.slots) done(s);
        double seconds = (System.nanoTime() - r.admittedNanos) / 1e9;
        secondsPerRequest = 0.8 * secondsPerRequest + 0.2 * seconds;
        publish(); // whoever the completion wakes sees the freed blocks
        r.request.complete(r.cachedPromptTokens, failure);
    }

    private void fail(RequestState r, Throwable failure) {
        finish(r, failure);
    }

    private int liveSequences() {
        int live = 0;
        for (RequestState r : running) {
            for (SequenceSlot s : r.slots) if (s.state != SequenceSlot.State.DONE) live++;
        }
        return live;
    }

    private int liveHolders() {
        int n = 0;
        for (RequestState r : running) {
            for (SequenceSlot s : r.slots) if (s.state == SequenceSlot.State.ACTIVE) n++;
        }
        return n;
    }

    private void publish() {
        int active = 0;
        for (RequestState r : running) {
            for (SequenceSlot s : r.slots) if (s.state == SequenceSlot.State.ACTIVE) active++;
        }
        published = new SchedulerStats(0, running.size(), active, paused.size(), cache.totalBlocks(),
                cache.usedBlocks(), cache.cachedBlocks(), cache.blockSize(),
                cache.bytesPerBlock(),
                promptTokensProcessed, cachedPromptTokens, tokensGenerated, preemptions, rejected.get(), steps,
                draftTokens, acceptedDraftTokens);
    }
}
