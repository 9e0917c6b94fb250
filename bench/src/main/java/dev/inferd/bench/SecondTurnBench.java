package dev.inferd.bench;

import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.GenerationResult;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.sample.SamplingParams;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;

/**
 * What the prefix cache saves on an agent's second turn: a request that repeats a long first prompt and adds a short
 * new turn. Through the serving engine ({@link LocalTextGenerator}, one sequence at a time), for each first-turn
 * length P: the first turn (P tokens, one generated), then the second turn (the same P tokens and N new ones), whose
 * P tokens come from the prefix cache, then a request of the same P + N tokens that shares nothing with the earlier
 * ones (a cold start). The time to the first token is the time until a request with one token to generate ends.
 * Prompts are random tokens of the middle of the vocabulary: the cost does not depend on which tokens they are.
 *
 * <pre>./inferd bench --second-turn 64 -m synthetic:llama-3.2-1b:Q4_0 -p 4096,16384 -r 3</pre>
 */
public final class SecondTurnBench {

    /** One first-turn length's medians, in seconds. */
    public record Result(int firstTurn, int newTokens, double firstTurnSeconds, double warmSeconds, double coldSeconds,
                         int cachedTokens) {
        public double speedUp() {
            return coldSeconds / warmSeconds;
        }
    }

    private final LocalTextGenerator generator;
    private final int vocabulary;

    private SecondTurnBench(LocalTextGenerator generator) {
        this.generator = generator;
        this.vocabulary = generator.vocabularySize();
    }

    /**
     * Opens the model with a context that holds the longest second turn (one sequence), measures every length and
     * prints a row for each as it ends.
     */
    public static List<Result> run(Path file, List<Integer> firstTurns, int newTokens, int repetitions, int threads,
                                   Path copyCache, PrintStream out) throws IOException {
        int longest = firstTurns.stream().mapToInt(Integer::intValue).max().orElseThrow() + newTokens + 1;
        var options = new LocalTextGenerator.Options(null, null, longest).withParallel(1).withThreads(threads)
                .withCopyCache(copyCache);
        var results = new ArrayList<Result>();
        try (var generator = LocalTextGenerator.open(file, options)) {
            var bench = new SecondTurnBench(generator);
            bench.time(bench.tokens(new SplittableRandom(-1), 64)); // compiles the kernels before the first row
            out.printf(Locale.ROOT, "| %-28s | %10s | %8s | %13s | %13s | %8s | %13s | %7s |%n", "model", "first turn",
                    "new turn", "1st turn TTFT", "2nd turn TTFT", "cached", "without cache", "speed-up");
            out.printf("| %s | %s: | %s: | %s: | %s: | %s: | %s: | %s: |%n", "-".repeat(28), "-".repeat(9), "-".repeat(7),
                    "-".repeat(12), "-".repeat(12), "-".repeat(7), "-".repeat(12), "-".repeat(7));
            for (int p : firstTurns) {
                Result r = bench.measure(p, newTokens, repetitions);
                results.add(r);
                out.printf(Locale.ROOT, "| %-28s | %10d | %8d | %11.2f s | %11.2f s | %8d | %11.2f s | %7.1fx |%n",
                        generator.description().id(), p, newTokens, r.firstTurnSeconds(), r.warmSeconds(),
                        r.cachedTokens(), r.coldSeconds(), r.speedUp());
            }
        }
        return results;
    }

    private Result measure(int firstTurn, int newTokens, int repetitions) {
        double[] first = new double[repetitions];
        double[] warm = new double[repetitions];
        double[] cold = new double[repetitions];
        int cached = 0;
        for (int r = 0; r < repetitions; r++) {
            var random = new SplittableRandom(31L * firstTurn + r);
            int[] turn1 = tokens(random, firstTurn);
            int[] turn2 = Arrays.copyOf(turn1, firstTurn + newTokens);
            System.arraycopy(tokens(random, newTokens), 0, turn2, firstTurn, newTokens);
            int[] unrelated = tokens(random, firstTurn + newTokens);
            first[r] = time(turn1).seconds();
            Timed second = time(turn2);
            warm[r] = second.seconds();
            cached = second.result().cachedPromptTokens();
            cold[r] = time(unrelated).seconds();
        }
        return new Result(firstTurn, newTokens, median(first), median(warm), median(cold), cached);
    }

    private record Timed(double seconds, GenerationResult result) {
    }

    private Timed time(int[] prompt) {
        long start = System.nanoTime();
        try {
            GenerationResult result = generator.submit(new GenerationRequest(prompt, 1, 1, List.of(), SamplingParams.GREEDY, 0))
                    .result().get();
            return new Timed((System.nanoTime() - start) / 1e9, result);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a request failed: " + e.getCause(), e.getCause());
        }
    }

    /** Random tokens from the middle half of the vocabulary, clear of the control tokens at its ends. */
    private int[] tokens(SplittableRandom random, int count) {
        int[] t = new int[count];
        for (int i = 0; i < count; i++) t[i] = vocabulary / 4 + random.nextInt(vocabulary / 2);
        return t;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
