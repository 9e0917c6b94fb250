package dev.inferd.engine.generate;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.batch.SchedulerStats;
import dev.inferd.engine.grammar.GrammarConstraint;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import dev.inferd.engine.sample.SamplingParams;
import dev.inferd.engine.sample.TokenConstraint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Speculative decoding on stories260K: with a draft model (the file itself, which always agrees; a twin
 * whose head is rolled, which never does) and with prompt lookup, greedy output is token for token the
 * output without speculation, with n > 1, stop sequences, penalties, logprobs, a grammar and many
 * requests at once.
 */
class SpeculativeDecodingTest {
    private static final String[] PROMPTS = {
            "Once upon a time", "The little dog", "Lily and Ben went to the park", "One day, a big red ball",
            "Tom was sad because", "The sun was shining and", "Mom said", "There was a tiny bird who"};
    /** A prompt whose continuation repeats it: prompt lookup finds its drafts there. */
    private static final String REPEATING = "Lily saw a big tree. Lily saw a big tree. Lily saw a big tree. Lily saw a big";
    private static final SamplingParams PENALIZED = new SamplingParams(0f, 1f, 1L, 0.3f, 0.2f, Map.of());

    @TempDir
    static Path dir;
    private static Path model;
    private static LocalTextGenerator plain;
    private static LocalTextGenerator selfDraft;
    private static LocalTextGenerator disagreeingDraft;
    private static LocalTextGenerator lookup;
    /** The file as its own draft, drafting only tokens it is sure enough of (the default). */
    private static LocalTextGenerator confidentSelfDraft;
    /** The file as its own draft where drafts must pay, as serve runs it: a draft as costly as the model never drafts. */
    private static LocalTextGenerator costAwareSelfDraft;

    @BeforeAll
    static void open() throws Exception {
        model = Fixtures.storiesModel();
        Path twin = DraftTwins.disagreeing(model, dir.resolve("rolled.gguf"));
        var options = LocalTextGenerator.Options.DEFAULTS;
        plain = LocalTextGenerator.open(model, options.withPromptLookup(false));
        // drafts of every confidence, whatever they cost: these two check what verification does with any draft
        selfDraft = LocalTextGenerator.open(model, options.withDraft(model).withDraftMinProbability(0f).withDraftAlways(true));
        disagreeingDraft = LocalTextGenerator.open(model, options.withDraft(twin).withDraftMinProbability(0f).withDraftAlways(true));
        confidentSelfDraft = LocalTextGenerator.open(model, options.withDraft(model).withDraftAlways(true));
        costAwareSelfDraft = LocalTextGenerator.open(model, options.withDraft(model).withDraftMinProbability(0f));
        lookup = LocalTextGenerator.open(model, options);
    }

    @AfterAll
    static void close() {
        for (var g : new LocalTextGenerator[] {plain, selfDraft, disagreeingDraft, lookup, confidentSelfDraft, costAwareSelfDraft}) {
            if (g != null) g.close();
        }
    }

    /** What a client sees of a run, per choice: token ids, text, finish reason, log-probabilities (with alternatives). */
    record Outcome(List<List<Integer>> tokens, List<String> texts, List<FinishReason> finish, List<List<String>> logprobs) {
    }

    private static Outcome run(LocalTextGenerator g, GenerationRequest request) {
        int n = request.n();
        List<List<Integer>> tokens = new ArrayList<>();
        List<StringBuilder> texts = new ArrayList<>();
        List<List<String>> logprobs = new ArrayList<>();
        FinishReason[] finish = new FinishReason[n];
        for (int c = 0; c < n; c++) {
            tokens.add(new ArrayList<>());
            texts.add(new StringBuilder());
            logprobs.add(new ArrayList<>());
        }
        Generation generation = g.submit(request);
        try {
            while (true) {
                switch (generation.next()) {
                    case GenerationEvent.Text t -> {
                        texts.get(t.choice()).append(t.text());
                        for (TokenLogprob lp : t.tokens()) {
                            tokens.get(t.choice()).add(lp.token());
                            logprobs.get(t.choice()).add(lp.token() + ":" + lp.logprob() + ":"
                                    + lp.top().stream().map(x -> x.token() + "=" + x.logprob()).toList());
                        }
                    }
                    case GenerationEvent.Finish f -> finish[f.choice()] = f.reason();
                    case GenerationEvent.End e -> {
                        return new Outcome(tokens, texts.stream().map(StringBuilder::toString).toList(), List.of(finish), logprobs);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static GenerationRequest greedy(String prompt, int maxTokens) {
        return new GenerationRequest(plain.textPrompt(prompt), 1, maxTokens, List.of(), SamplingParams.GREEDY, 0);
    }

    @Test
    void greedyOutputIsTheSameWithADraftModelThatAlwaysAgreesOneThatNeverDoesAndPromptLookup() {
        long draftedBefore = selfDraft.stats().draftTokens();
        for (String prompt : PROMPTS) {
            Outcome expected = run(plain, greedy(prompt, 40));
            assertThat(expected.tokens().getFirst()).hasSizeGreaterThan(5);
            assertThat(run(selfDraft, greedy(prompt, 40))).as(prompt).isEqualTo(expected);
            assertThat(run(disagreeingDraft, greedy(prompt, 40))).as(prompt).isEqualTo(expected);
            assertThat(run(lookup, greedy(prompt, 40))).as(prompt).isEqualTo(expected);
            assertThat(run(confidentSelfDraft, greedy(prompt, 40))).as(prompt).isEqualTo(expected);
        }
        SchedulerStats self = selfDraft.stats();
        assertThat(self.draftTokens() - draftedBefore).isGreaterThan(100);
        assertThat(self.acceptance()).as("the file drafting for itself").isGreaterThan(0.95);
        assertThat(disagreeingDraft.stats().acceptance()).as("the rolled twin").isLessThan(0.05);
        assertThat(confidentSelfDraft.stats().acceptedDraftTokens()).as("drafts the file is sure of").isPositive();
    }

    @Test
    void aDraftThatNeverAgreesStopsDraftingAfterThreeFailedProbesAndKeepsTheOutput() {
        for (String prompt : List.of(PROMPTS[1], PROMPTS[4])) {
            long drafted = twinDraftTokensKeepingTheOutput(prompt, 120);
            if (drafted < 0) continue;
            // three probes of one token each (at steps 0, 5 and 14), then the sequence decodes without its draft
            assertThat(drafted).as(prompt).isLessThanOrEqualTo(3);
        }
    }

    @Test
    void aShortAnswerGivesADraftThatNeverAgreesUpAfterItsFirstProbe() {
        for (String prompt : List.of(PROMPTS[2], PROMPTS[5])) {
            long drafted = twinDraftTokensKeepingTheOutput(prompt, 30);
            if (drafted < 0) continue;
            // 25 tokens left at step 5: fewer than a second probe needs
            assertThat(drafted).as(prompt).isLessThanOrEqualTo(1);
        }
    }

    /**
     * Runs one greedy request through the never-agreeing twin, checks that its output is plain decoding's, and returns
     * the draft tokens the twin proposed for it, or -1 where the twin agreed once (a kept token lets it go on drafting).
     */
    private static long twinDraftTokensKeepingTheOutput(String prompt, int maxTokens) {
        var request = greedy(prompt, maxTokens);
        SchedulerStats before = disagreeingDraft.stats();
        assertThat(run(disagreeingDraft, request)).as(prompt).isEqualTo(run(plain, request));
        SchedulerStats after = disagreeingDraft.stats();
        if (after.acceptedDraftTokens() > before.acceptedDraftTokens()) return -1;
        return after.draftTokens() - before.draftTokens();
    }

    @Test
    void aDraftAsCostlyAsTheModelDoesNotDraftWhereDraftsMustPay() {
        long before = costAwareSelfDraft.stats().draftTokens();
        for (String prompt : List.of(PROMPTS[0], PROMPTS[3])) {
            var request = greedy(prompt, 40);
            assertThat(run(costAwareSelfDraft, request)).as(prompt).isEqualTo(run(plain, request));
        }
        // its weights' bytes are the model's: a pass of it costs a step, more than any kept token gains
        assertThat(costAwareSelfDraft.stats().draftTokens() - before).isZero();
    }

    @Test
    void promptLookupDraftsFromARepeatingPromptAndKeepsTheOutput() {
        var request = greedy(REPEATING, 48);
        long before = lookup.stats().acceptedDraftTokens();
        assertThat(run(lookup, request)).isEqualTo(run(plain, request));
        assertThat(lookup.stats().acceptedDraftTokens() - before).as("accepted draft tokens").isGreaterThan(10);
    }

    @Test
    void severalChoicesStopSequencesPenaltiesAndLogprobsAreTheSame() {
        var request = new GenerationRequest(plain.textPrompt("Once upon a time"), 3, 48, List.of("park", "."), PENALIZED, 3);
        Outcome expected = run(plain, request);
        assertThat(expected.finish()).contains(FinishReason.STOP);
        for (var g : List.of(selfDraft, disagreeingDraft, lookup, confidentSelfDraft)) assertThat(run(g, request)).isEqualTo(expected);
        var repeating = new GenerationRequest(plain.textPrompt(REPEATING), 2, 40, List.of("tree. Lily saw a big tree. Lily"),
                SamplingParams.GREEDY, 2);
        Outcome repeated = run(plain, repeating);
        for (var g : List.of(selfDraft, lookup)) assertThat(run(g, repeating)).isEqualTo(repeated);
    }

    @Test
    void seededSamplingWithPromptLookupIsTheSameAsWithoutIt() {
        var seeded = new SamplingParams(0.8f, 0.95f, 99L, 0f, 0f, Map.of());
        var request = new GenerationRequest(plain.textPrompt(REPEATING), 2, 40, List.of(), seeded, 1);
        assertThat(run(lookup, request)).isEqualTo(run(plain, request));
    }

    @Test
    void aGrammarConstrainsTheDraftAndTheOutputIsTheSame() {
        var grammar = JsonSchemaCompiler.compile(Map.of("type", "object",
                "properties", Map.of("name", Map.of("type", "string"), "age", Map.of("type", "integer")),
                "required", List.of("name", "age")));
        TokenConstraint.Factory constraint = GrammarConstraint.factory(grammar, plain.vocabulary());
        var request = new GenerationRequest(plain.textPrompt("Lily said"), 2, 40, List.of(), SamplingParams.GREEDY, 1, constraint);
        Outcome expected = run(plain, request);
        assertThat(expected.texts().getFirst()).startsWith("{");
        long before = selfDraft.stats().acceptedDraftTokens();
        for (var g : List.of(selfDraft, disagreeingDraft, lookup, confidentSelfDraft)) assertThat(run(g, request)).isEqualTo(expected);
        assertThat(selfDraft.stats().acceptedDraftTokens() - before).as("drafts masked like the output").isGreaterThan(10);
    }

    @Test
    void requestsRunningTogetherGetWhatEachGetsAlone() throws Exception {
        List<Outcome> alone = new ArrayList<>();
        for (String prompt : PROMPTS) alone.add(run(plain, greedy(prompt, 32)));
        alone.add(run(plain, greedy(REPEATING, 32)));
        for (var g : List.of(selfDraft, disagreeingDraft, lookup)) {
            List<CompletableFuture<Outcome>> together = new ArrayList<>();
            for (int i = 0; i <= PROMPTS.length; i++) {
                var request = greedy(i < PROMPTS.length ? PROMPTS[i] : REPEATING, 32);
                together.add(CompletableFuture.supplyAsync(() -> run(g, request), Thread::startVirtualThread));
            }
            for (int i = 0; i < together.size(); i++) assertThat(together.get(i).get()).as("request %d", i).isEqualTo(alone.get(i));
        }
    }

    @Test
    void sampledOutputWithADraftModelRunsToItsLength() {
        var sampled = new SamplingParams(1f, 0.9f, 5L, 0f, 0.1f, Map.of());
        var request = new GenerationRequest(plain.textPrompt("Once upon a time"), 2, 32, List.of(), sampled, 1);
        long before = selfDraft.stats().acceptedDraftTokens();
        Outcome out = run(selfDraft, request);
        assertThat(out.tokens()).allSatisfy(ids -> assertThat(ids).isNotEmpty());
        assertThat(out.logprobs()).isNotEmpty();
        assertThat(selfDraft.stats().acceptedDraftTokens() - before).isGreaterThan(10);
    }

    /**
     * The token after a forced first one, sampled at temperature 1 by n = 4 choices a request, through
     * the scheduler with a draft model: its counts against the target's distribution at that position
     * (from a plain run's log-probabilities), by a chi-square test at a significance of 0.001. The
     * rolled twin's drafts are rejected and resampled nearly always, the file's own kept always.
     */
    @Test
    void sampledTokensAfterADraftAreDistributedAsTheTargets() {
        int[] prompt = plain.textPrompt("Once upon a time");
        int forced = run(plain, greedy("Once upon a time", 1)).tokens().getFirst().getFirst();
        var reference = run(plain, new GenerationRequest(prompt, 1, 2, List.of(), SamplingParams.GREEDY, 20, () -> new Forced(forced, 0)));
        Map<Integer, Double> expected = new java.util.HashMap<>();
        for (String alternative : reference.logprobs().getFirst().get(1).replaceAll(".*:\\[|\\]", "").split(", ")) {
            String[] parts = alternative.split("=");
            expected.put(Integer.parseInt(parts[0]), Math.exp(Double.parseDouble(parts[1])));
        }
        for (var g : List.of(disagreeingDraft, selfDraft)) {
            long draftedBefore = g.stats().draftTokens();
            Map<Integer, Integer> counts = new java.util.HashMap<>();
            int samples = 0;
            for (int i = 0; i < 400; i++) {
                var sampled = new SamplingParams(1f, 1f, 4L * i, 0f, 0f, Map.of());
                var out = run(g, new GenerationRequest(prompt, 4, 3, List.of(), sampled, 0, () -> new Forced(forced, 0)));
                for (List<Integer> ids : out.tokens()) {
                    counts.merge(ids.get(1), 1, Integer::sum);
                    samples++;
                }
            }
            assertThat(g.stats().draftTokens() - draftedBefore).as("second tokens verified against a draft").isGreaterThanOrEqualTo(samples);
            double chi = 0;
            int categories = 0;
            double otherExpected = samples;
            int otherObserved = samples;
            for (var e : expected.entrySet()) {
                double exp = e.getValue() * samples;
                if (exp < 5) continue;
                int obs = counts.getOrDefault(e.getKey(), 0);
                chi += (obs - exp) * (obs - exp) / exp;
                categories++;
                otherExpected -= exp;
                otherObserved -= obs;
            }
            if (otherExpected >= 5) {
                chi += (otherObserved - otherExpected) * (otherObserved - otherExpected) / otherExpected;
                categories++;
            }
            assertThat(categories).isGreaterThan(3);
            assertThat(chi).as("chi-square of %s against %s", counts, expected)
                    .isLessThan(dev.inferd.engine.sample.SpeculativeSamplingTest.chiSquareCritical(categories - 1));
        }
    }

    /** Forces token {@code token} at the first position, then allows anything; copied for drafts. */
    private record Forced(int token, int[] taken) implements TokenConstraint {
        Forced(int token, int taken) {
            this(token, new int[] {taken});
        }

        @Override
        public void mask(float[] logits) {
            if (taken[0] > 0) return;
            for (int t = 0; t < logits.length; t++) if (t != token) logits[t] = Float.NEGATIVE_INFINITY;
        }

        @Override
        public void accept(int t) {
            taken[0]++;
        }

        @Override
        public TokenConstraint copy() {
            return new Forced(token, taken[0]);
        }
    }

    @Test
    void aCancelledRequestStopsAndGivesItsBlocksBack() throws Exception {
        var request = new GenerationRequest(plain.textPrompt(REPEATING), 2, 400, List.of(),
                new SamplingParams(0f, 1f, 1L, 0f, 0f, Map.of(1, -100f, 2, -100f)), -1);
        Generation generation = selfDraft.submit(request);
        int texts = 0;
        while (texts < 3) if (generation.next() instanceof GenerationEvent.Text) texts++;
        generation.cancel();
        GenerationResult result = null;
        while (result == null) if (generation.next() instanceof GenerationEvent.End end) result = end.result();
        assertThat(result.completionTokens()).isLessThan(800);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (selfDraft.stats().kvBlocksUsed() > 0 && System.nanoTime() < deadline) Thread.sleep(5);
        assertThat(selfDraft.stats().kvBlocksUsed()).isZero();
        assertThat(selfDraft.stats().runningRequests()).isZero();
    }

    @Test
    void aDraftWhoseVocabularyDiffersIsRefused() throws Exception {
        Path renamed = DraftTwins.renamed(model, dir.resolve("renamed.gguf"), Map.of(300, "zzz"));
        assertThatThrownBy(() -> LocalTextGenerator.open(model, LocalTextGenerator.Options.DEFAULTS.withDraft(renamed)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot draft for")
                .hasMessageContaining("token 300");
    }
}
