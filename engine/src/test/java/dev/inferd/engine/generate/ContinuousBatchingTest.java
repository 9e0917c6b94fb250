package dev.inferd.engine.generate;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.batch.SchedulerStats;
import dev.inferd.engine.sample.SamplingParams;
import dev.inferd.engine.sample.TokenConstraint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * Many requests at once on stories260K: a request's output does not depend on what runs beside it,
 * cancelled requests free their memory, prompts are shared and cached, the queue and the pool are
 * bounded.
 */
class ContinuousBatchingTest {
    private static final String[] PROMPTS = {
            "Once upon a time", "The little dog", "Lily and Ben went to the park", "One day, a big red ball",
            "Tom was sad because", "The sun was shining and", "Mom said", "There was a tiny bird who"};
    private static Path model;
    /** Runs requests one at a time: the reference outputs. */
    private static LocalTextGenerator solo;

    @BeforeAll
    static void open() throws Exception {
        model = Fixtures.storiesModel();
        solo = LocalTextGenerator.open(model, LocalTextGenerator.Options.DEFAULTS);
    }

    @AfterAll
    static void close() {
        if (solo != null) solo.close();
    }

    private static LocalTextGenerator open(LocalTextGenerator.Options options) throws Exception {
        return LocalTextGenerator.open(model, options);
    }

    private static final SamplingParams SEEDED = new SamplingParams(1f, 1f, 1234L, 0f, 0f, Map.of());

    private static GenerationRequest request(LocalTextGenerator g, String prompt, int maxTokens, SamplingParams sampling) {
        return new GenerationRequest(g.textPrompt(prompt), 1, maxTokens, List.of(), sampling, 0);
    }

    /** Records a run's text and token ids per choice; can cancel itself or report its progress. */
    static final class Recorder {
        final List<StringBuilder> text = new ArrayList<>();
        final List<List<Integer>> tokens = new ArrayList<>();
        /** Every choice's reported log-probabilities, in arrival order. */
        final List<TokenLogprob> logprobs = new CopyOnWriteArrayList<>();
        final List<FinishReason> finish = new CopyOnWriteArrayList<>();
        volatile int events;
        volatile int cancelAfter = Integer.MAX_VALUE;
        volatile boolean cancelled;
        volatile Generation generation;
        volatile Consumer<Recorder> onEvent = r -> { };

        Recorder(int choices) {
            for (int i = 0; i < choices; i++) {
                text.add(new StringBuilder());
                tokens.add(new ArrayList<>());
            }
        }

        /** Reads the generation's events to its end. */
        GenerationResult consume(Generation g) throws InterruptedException {
            generation = g;
            while (true) {
                if (cancelled || events >= cancelAfter) g.cancel();
                switch (g.next()) {
                    case GenerationEvent.Text t -> {
                        text.get(t.choice()).append(t.text());
                        for (TokenLogprob lp : t.tokens()) tokens.get(t.choice()).add(lp.token());
                        logprobs.addAll(t.tokens());
                        events++;
                        onEvent.accept(this);
                    }
                    case GenerationEvent.Finish f -> finish.add(f.reason());
                    case GenerationEvent.End e -> {
                        return e.result();
                    }
                }
            }
        }

        void cancel() {
            cancelled = true;
            Generation g = generation;
            if (g != null) g.cancel();
        }

        List<Integer> ids() {
            return tokens.getFirst();
        }
    }

    /** A request whose sampler calls {@code onStep} on the scheduler thread before choosing each token. */
    static GenerationRequest observed(GenerationRequest r, Runnable onStep) {
        TokenConstraint observer = new TokenConstraint() {
            @Override
            public void mask(float[] logits) {
                onStep.run();
            }

            @Override
            public void accept(int token) {
            }
        };
        return new GenerationRequest(r.prompt(), r.n(), r.maxTokens(), r.stop(), r.sampling(), r.logprobs(), () -> observer);
    }

    static GenerationResult generate(LocalTextGenerator g, GenerationRequest request, Recorder recorder) {
        try {
            return recorder.consume(g.submit(request));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    record Run(Recorder recorder, CompletableFuture<GenerationResult> result) {
    }

    private static Run start(LocalTextGenerator g, GenerationRequest request, Recorder recorder) {
        var future = new CompletableFuture<GenerationResult>();
        Thread.ofVirtual().start(() -> {
            try {
                future.complete(recorder.consume(g.submit(request)));
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        });
        return new Run(recorder, future);
    }

    private static List<Integer> soloIds(String prompt, int maxTokens, SamplingParams sampling) {
        var r = new Recorder(1);
        generate(solo, request(solo, prompt, maxTokens, sampling), r);
        return r.ids();
    }

    private static void awaitEvents(Recorder r, int events) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (r.events < events && System.nanoTime() < deadline) Thread.sleep(1);
    }

    private static GenerationResult join(Run run) throws Exception {
        return run.result().get(60, TimeUnit.SECONDS);
    }

    @Test
    void greedyOutputIsTheSameAloneAndInterleavedWithRequestsJoiningMidway() throws Exception {
        // steps of up to 64 tokens, and prompts of three sentences: a joining prompt and the others'
        // decodes make batches past 16
        checkInterleavedEqualsAlone(SamplingParams.GREEDY, 64);
    }

    @Test
    void seededSamplingIsTheSameAloneAndInterleaved() throws Exception {
        checkInterleavedEqualsAlone(SEEDED, 8);
    }

    private void checkInterleavedEqualsAlone(SamplingParams sampling, int stepTokens) throws Exception {
        int[] lengths = {60, 25, 45, 35, 50};
        String[] prompts = new String[lengths.length];
        for (int i = 0; i < lengths.length; i++) {
            prompts[i] = stepTokens <= 8 ? PROMPTS[i] : PROMPTS[i] + ". " + PROMPTS[i + 1] + ". " + PROMPTS[i + 2];
        }
        try (var g = open(LocalTextGenerator.Options.DEFAULTS.withParallel(4).withStepTokens(stepTokens))) {
            List<Run> runs = new ArrayList<>();
            for (int i = 0; i < lengths.length; i++) {
                runs.add(start(g, request(g, prompts[i], lengths[i], sampling), new Recorder(1)));
                awaitEvents(runs.getLast().recorder(), 3 + i); // the next one joins while this one decodes
            }
            for (int i = 0; i < lengths.length; i++) {
                join(runs.get(i));
                assertThat(runs.get(i).recorder().ids()).as("request %d", i)
                        .hasSize(lengths[i]).isEqualTo(soloIds(prompts[i], lengths[i], sampling));
            }
            assertThat(g.stats().steps()).isLessThan(lengths[0] + lengths[1] + lengths[2] + lengths[3] + lengths[4]);
        }
    }

    @Test
    void aTokenConstraintDecidesEveryChoicesTokens() {
        var allowed = java.util.Set.of(100, 200, 300);
        TokenConstraint.Factory onlyAllowed = () -> new TokenConstraint() {
            @Override
            public void mask(float[] logits) {
                for (int i = 0; i < logits.length; i++) if (!allowed.contains(i)) logits[i] = Float.NEGATIVE_INFINITY;
            }

            @Override
            public void accept(int token) {
                assertThat(allowed).contains(token);
            }
        };
        var base = request(solo, PROMPTS[0], 12, SEEDED);
        var recorder = new Recorder(2);
        GenerationResult result = generate(solo, new GenerationRequest(base.prompt(), 2, 12, List.of(), SEEDED, 0,
                onlyAllowed), recorder);

        assertThat(result.completionTokens()).isEqualTo(24);
        for (int c = 0; c < 2; c++) assertThat(recorder.tokens.get(c)).hasSize(12).isSubsetOf(allowed);
        assertThat(recorder.finish).containsExactly(FinishReason.LENGTH, FinishReason.LENGTH);
    }

    @Test
    void cancelledRequestsStopAndFreeTheirBlocksWhileTheOthersAreUnaffected() throws Exception {
        int maxTokens = 40;
        try (var g = open(LocalTextGenerator.Options.DEFAULTS.withParallel(8).withMaxQueued(16))) {
            List<Run> runs = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                var recorder = new Recorder(1);
                if (i % 2 == 1) recorder.cancelAfter = 5 + i;
                runs.add(start(g, request(g, PROMPTS[i % PROMPTS.length], maxTokens, SamplingParams.GREEDY), recorder));
            }
            for (int i = 0; i < 16; i++) {
                GenerationResult result = join(runs.get(i));
                Recorder r = runs.get(i).recorder();
                if (i % 2 == 1) {
                    assertThat(result.completionTokens()).as("cancelled %d", i).isLessThan(maxTokens);
                    assertThat(r.finish).isEmpty();
                } else {
                    assertThat(r.ids()).as("request %d", i).isEqualTo(soloIds(PROMPTS[i % PROMPTS.length], maxTokens,
                            SamplingParams.GREEDY));
                }
            }
            SchedulerStats stats = g.stats();
            assertThat(stats.kvBlocksUsed()).isZero();
            assertThat(stats.activeSequences()).isZero();
            assertThat(stats.runningRequests()).isZero();
            assertThat(stats.kvBlocksCached()).isPositive();
        }
    }

    @Test
    void aSecondRequestReusesTheCachedPrefixAndGivesTheSameOutput() throws Exception {
        String shared = "Once upon a time, there was a little girl named Lily. She liked to play in the park with her"
                + " big red ball. One day, she saw a cat";
        try (var g = open(LocalTextGenerator.Options.DEFAULTS)) {
            GenerationRequest firstReq = request(g, shared + " on a tree.", 10, SamplingParams.GREEDY);
            GenerationResult first = generate(g, firstReq, new Recorder(1));
            assertThat(first.cachedPromptTokens()).isZero();
            var second = new Recorder(1);
            GenerationRequest req = request(g, shared + " and a dog.", 30, SamplingParams.GREEDY);
            GenerationResult result = generate(g, req, second);
            int promptLength = req.prompt().length;
            // to the token: whole blocks, then the first positions of the block where the prompts part
            int common = Arrays.mismatch(firstReq.prompt(), req.prompt());
            assertThat(common % 16).as("the prompts part inside a block").isPositive();
            assertThat(result.cachedPromptTokens()).isEqualTo(common).isLessThan(promptLength);
            assertThat(result.promptTokens()).isEqualTo(promptLength);
            assertThat(g.stats().cachedPromptTokens()).isEqualTo(result.cachedPromptTokens());
            assertThat(second.ids()).isEqualTo(soloIds(shared + " and a dog.", 30, SamplingParams.GREEDY));
        }
    }

    @Test
    void promptsAdmittedTogetherComputeTheirCommonPrefixOnce() throws Exception {
        String shared = "Once upon a time, there was a little girl named Lily. She liked to play in the park with her"
                + " big red ball. One day, she saw a cat";
        try (var g = open(LocalTextGenerator.Options.DEFAULTS)) {
            // a first request holds the scheduler thread in its sampler step until the other two are queued,
            // so that they are admitted in one step, with nothing of theirs in the cache
            var gate = new CountDownLatch(1);
            var holding = new CountDownLatch(1);
            var holder = new Recorder(1);
            GenerationRequest holdingRequest = observed(request(g, PROMPTS[1], 1, SamplingParams.GREEDY), () -> {
                holding.countDown();
                awaitQuietly(gate);
            });
            Run held = start(g, holdingRequest, holder);
            assertThat(holding.await(20, TimeUnit.SECONDS)).isTrue();
            GenerationRequest olderRequest = request(g, shared + " on a tree.", 10, SamplingParams.GREEDY);
            GenerationRequest youngerRequest = request(g, shared + " and a dog.", 10, SamplingParams.GREEDY);
            Run older = start(g, olderRequest, new Recorder(1));
            awaitQueued(g, 1);
            Run younger = start(g, youngerRequest, new Recorder(1));
            awaitQueued(g, 2);
            gate.countDown();
            join(held);

            int common = Arrays.mismatch(olderRequest.prompt(), youngerRequest.prompt());
            assertThat(common).as("a whole block and part of the next").isGreaterThan(16).matches(c -> c % 16 != 0);
            assertThat(join(older).cachedPromptTokens()).isZero();
            assertThat(join(younger).cachedPromptTokens()).isEqualTo(common);
            assertThat(g.stats().promptTokensProcessed())
                    .isEqualTo(holdingRequest.prompt().length + olderRequest.prompt().length + youngerRequest.prompt().length - common);
            assertThat(g.stats().cachedPromptTokens()).isEqualTo(common);
            assertThat(older.recorder().ids()).isEqualTo(soloIds(shared + " on a tree.", 10, SamplingParams.GREEDY));
            assertThat(younger.recorder().ids()).isEqualTo(soloIds(shared + " and a dog.", 10, SamplingParams.GREEDY));
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitQueued(LocalTextGenerator g, int queued) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (g.stats().queuedRequests() < queued && System.nanoTime() < deadline) Thread.sleep(1);
        assertThat(g.stats().queuedRequests()).isEqualTo(queued);
    }

    @Test
    void aFollowUpQuotingAnEarlierAnswerReusesTheAnswersBlocksAndGivesTheColdRunsTokens() throws Exception {
        try (var g = open(LocalTextGenerator.Options.DEFAULTS)) {
            int[] question = g.textPrompt("Once upon a time, there was a little girl named Lily. She liked to play"
                    + " in the park with her big red ball.");
            var answer = new Recorder(1);
            generate(g, new GenerationRequest(question, 1, 40, List.of(), SamplingParams.GREEDY, 0), answer);
            // the next turn's prompt holds the question, the answer as it was generated, and more
            int[] followUp = IntStream.concat(IntStream.concat(Arrays.stream(question),
                    answer.ids().stream().mapToInt(Integer::intValue)), Arrays.stream(question, 1, 6)).toArray();

            var warm = new Recorder(1);
            GenerationResult result = generate(g, new GenerationRequest(followUp, 1, 20, List.of(), SamplingParams.GREEDY, 0), warm);
            // every full block the first exchange wrote (its last token was sampled, never run)
            int written = question.length + answer.ids().size() - 1;
            assertThat(result.cachedPromptTokens()).isEqualTo(written / 16 * 16).isGreaterThan(question.length / 16 * 16);

            var cold = new Recorder(1);
            try (var fresh = open(LocalTextGenerator.Options.DEFAULTS)) {
                generate(fresh, new GenerationRequest(followUp, 1, 20, List.of(), SamplingParams.GREEDY, 0), cold);
            }
            assertThat(warm.ids()).isEqualTo(cold.ids());
            // the answer's keys and values came from the row kernels, a cold run's from the tiled product
            for (int i = 0; i < cold.logprobs.size(); i++) {
                assertThat(warm.logprobs.get(i).logprob()).isCloseTo(cold.logprobs.get(i).logprob(), within(1e-3f));
            }
        }
    }

    @Test
    void choicesShareThePromptsBlocksAndEachMatchesItsOwnSeed() throws Exception {
        String prompt = "Once upon a time, there was a little girl named Lily. She liked to play in the park with her"
                + " big red ball. One day, she saw a cat on a tree and she";
        try (var g = open(LocalTextGenerator.Options.DEFAULTS)) {
            int[] tokens = g.textPrompt(prompt);
            int promptBlocks = Math.ceilDiv(tokens.length, 16);
            var recorder = new Recorder(3);
            int[] mostUsed = {0};
            generate(g, observed(new GenerationRequest(tokens, 3, 20, List.of(), SEEDED, 0),
                    () -> mostUsed[0] = Math.max(mostUsed[0], g.stats().kvBlocksUsed())), recorder);
            // unshared, three prompts would need 3 * promptBlocks; shared, the full blocks are held once
            assertThat(mostUsed[0]).isLessThan(3 * promptBlocks).isGreaterThanOrEqualTo(promptBlocks);
            for (int c = 0; c < 3; c++) {
                var alone = new SamplingParams(1f, 1f, 1234L + c, 0f, 0f, Map.of());
                assertThat(recorder.tokens.get(c)).as("choice %d", c).isEqualTo(soloIds(prompt, 20, alone));
            }
            assertThat(recorder.tokens.get(0)).isNotEqualTo(recorder.tokens.get(1));
        }
    }

    @Test
    void aFullQueueRefusesAtOnceWithARetryHint() throws Exception {
        try (var g = open(LocalTextGenerator.Options.DEFAULTS.withParallel(1).withMaxQueued(1))) {
            var running = start(g, request(g, PROMPTS[0], 1000, SamplingParams.GREEDY), new Recorder(1));
            awaitEvents(running.recorder(), 1);
            var queued = start(g, request(g, PROMPTS[1], 1000, SamplingParams.GREEDY), new Recorder(1));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (g.stats().queuedRequests() < 1 && System.nanoTime() < deadline) Thread.sleep(1);
            assertThatThrownBy(() -> generate(g, request(g, PROMPTS[2], 5, SamplingParams.GREEDY), new Recorder(1)))
                    .isInstanceOfSatisfying(BusyException.class, e -> assertThat(e.retryAfterSeconds()).isBetween(1, 60))
                    .hasMessageContaining("busy");
            assertThat(g.stats().rejectedRequests()).isEqualTo(1);
            queued.recorder().cancel();
            running.recorder().cancel();
            join(queued);
            join(running);
            assertThat(g.stats().kvBlocksUsed()).isZero();
        }
    }

    @Test
    void aLongPromptIsChunkedWhileOtherStreamsKeepDecoding() throws Exception {
        StringBuilder longText = new StringBuilder();
        while (longText.length() < 900) longText.append("Lily and Ben went to the park. They played with a big red ball. ");
        try (var g = open(LocalTextGenerator.Options.DEFAULTS.withStepTokens(16))) {
            GenerationRequest longRequest = request(g, longText.toString(), 5, SamplingParams.GREEDY);
            assertThat(longRequest.prompt().length).isGreaterThan(160);
            var decoder = new Recorder(1);
            var longDone = new java.util.concurrent.atomic.AtomicBoolean();
            List<Long> promptProgressSeenByDecoder = new CopyOnWriteArrayList<>();
            var longRecorder = new Recorder(1);
            longRecorder.onEvent = r -> longDone.set(true);
            var decoding = start(g, observed(request(g, PROMPTS[0], 400, SamplingParams.GREEDY), () -> {
                if (!longDone.get()) promptProgressSeenByDecoder.add(g.stats().promptTokensProcessed());
            }), decoder);
            awaitEvents(decoder, 2);
            long before = g.stats().promptTokensProcessed();
            var longRun = start(g, longRequest, longRecorder);
            join(longRun);
            decoder.cancel();
            join(decoding);
            // the decoder got tokens between the long prompt's chunks: it saw the prefill half done
            long during = promptProgressSeenByDecoder.stream()
                    .filter(p -> p > before + 16 && p < before + longRequest.prompt().length - 16).distinct().count();
            assertThat(during).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void whenThePoolRunsDryTheYoungestSequenceIsPausedAndRecomputedWithTheSameOutput() throws Exception {
        int maxTokens = 120;
        long blockBytes = dev.inferd.engine.kvcache.KVCache.bytesPerBlock(5, 32, 16);
        // 12 blocks: each request alone needs up to 9; four at once cannot all fit. The context is asked for (the
        // default would be the 192 positions the pool holds), so that a request the pool can never hold exists.
        try (var g = open(new LocalTextGenerator.Options(null, null, 512).withParallel(4).withKvMemory(12 * blockBytes))) {
            assertThat(g.stats().kvBlocksTotal()).isEqualTo(12);
            List<Run> runs = new ArrayList<>();
            for (int i = 0; i < 4; i++) runs.add(start(g, request(g, PROMPTS[i], maxTokens, SamplingParams.GREEDY), new Recorder(1)));
            for (int i = 0; i < 4; i++) {
                join(runs.get(i));
                assertThat(runs.get(i).recorder().ids()).as("request %d", i)
                        .isEqualTo(soloIds(PROMPTS[i], maxTokens, SamplingParams.GREEDY));
            }
            assertThat(g.stats().preemptions()).isPositive();
            assertThat(g.stats().kvBlocksUsed()).isZero();
            assertThatThrownBy(() -> generate(g, request(g, PROMPTS[0], 1000, SamplingParams.GREEDY), new Recorder(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("KV cache blocks")
                    .hasMessageContaining("holds 12");
        }
    }
}
