package dev.inferd.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inferd.bench.CpuInfo;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * {@code inferd bench --catalog-decode}: for each distinct (shape, quantization) pair of the catalog
 * ({@link CatalogDecodePairs}), writes the synthetic twin, measures generation with {@code inferd bench}
 * and {@code llama-bench} on that file in alternating order, round by round, deletes the file, and
 * prints one markdown row.
 *
 * <p>Each measurement runs in a process of its own, as a user would run it: kernels compiled for one
 * file's types do not carry over to the next file, and the two engines never share a JIT or a heap.
 */
final class CatalogDecodeTable {
    static final String HEADER = "| file | catalog models | size | inferd t/s | of limit | llama.cpp t/s | ratio per round | ratio |";
    static final String RULE = "|---|---|---:|---:|---:|---:|---|---:|";

    /**
     * What to run: see the options of {@link BenchCommand} that set each. {@code workDir} is a directory
     * of this run's own: it is deleted at the end.
     */
    record Settings(Path llamaBench, long maxSize, String only, int rounds, int tokens, int repetitions, int threads,
                    Path out, Path workDir, boolean dryRun) {
    }

    /** One pair's measurements, round by round (each list holds one value a round). */
    record Measured(String label, List<String> slugs, long fileBytes, List<Double> inferd, List<Double> fractions,
                    List<Double> llama) {
        /** The markdown row: medians over the rounds, and inferd / llama.cpp within each round. */
        String row() {
            List<Double> ratios = new ArrayList<>();
            for (int r = 0; r < llama.size(); r++) ratios.add(inferd.get(r) / llama.get(r));
            String perRound = ratios.stream().map(x -> fixed(x, 2)).reduce((a, b) -> a + ", " + b).orElse("-");
            return "| " + label + " | " + String.join(", ", slugs) + " | " + BenchCommand.gib(fileBytes) + " | "
                    + fixed(median(inferd), 2) + " | " + (fractions.isEmpty() ? "-" : fixed(median(fractions), 2)) + " | "
                    + (llama.isEmpty() ? "-" : fixed(median(llama), 2)) + " | " + perRound + " | "
                    + (ratios.isEmpty() ? "-" : fixed(median(ratios), 2)) + " |";
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Settings settings;
    private final PrintStream out;
    private final PrintStream err;
    private volatile Process running;

    CatalogDecodeTable(Settings settings, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.out = out;
        this.err = err;
    }

    /** The label of a pair's row, e.g. {@code qwen2.5-7b Q4_K_M}: what {@code --out} is searched for. */
    static String label(CatalogDecodePairs.Pair pair) {
        return pair.spec().shape().name() + " " + pair.spec().format().name();
    }

    /** The labels of the rows {@code table} already holds (a previous run's {@code --out}). */
    static List<String> labelsIn(List<String> table) {
        return table.stream().filter(l -> l.startsWith("| ") && !l.equals(HEADER))
                .map(l -> l.substring(2, l.indexOf(" |", 2))).toList();
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        if (n == 0) return Double.NaN;
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    int run(CatalogDecodePairs catalog) throws IOException, InterruptedException {
        List<String> done = settings.out != null && Files.isRegularFile(settings.out)
                ? labelsIn(Files.readAllLines(settings.out)) : List.of();
        List<CatalogDecodePairs.Pair> selected = catalog.pairs().stream().filter(p -> p.selectedBy(settings.only)).toList();
        err.printf(Locale.ROOT, "inferd bench: %d models of the catalog make %d distinct (shape, type) pairs; %d selected, "
                        + "%d already in %s; files up to %s; %d round%s of tg%d, -r %d, %d threads%n",
                catalog.pairs().stream().mapToInt(p -> p.slugs().size()).sum(), catalog.pairs().size(), selected.size(),
                selected.stream().filter(p -> done.contains(label(p))).count(), settings.out == null ? "-" : settings.out,
                BenchCommand.gib(settings.maxSize), settings.rounds, settings.rounds == 1 ? "" : "s", settings.tokens,
                settings.repetitions, settings.threads);
        if (settings.llamaBench == null) err.println("inferd bench: no --llama-bench: the llama.cpp columns stay empty");
        out.println(HEADER);
        out.println(RULE);
        if (settings.out != null && done.isEmpty()) append(HEADER + "\n" + RULE);
        Thread cleanup = new Thread(this::stopAndClean);
        Runtime.getRuntime().addShutdownHook(cleanup);
        long started = System.nanoTime();
        try {
            for (CatalogDecodePairs.Pair pair : selected) {
                if (done.contains(label(pair))) continue;
                String skip = whySkip(pair);
                if (skip != null) {
                    out.println("| " + label(pair) + " | " + String.join(", ", pair.slugs()) + " | "
                            + BenchCommand.gib(pair.fileBytes()) + " | skipped: " + skip + " | | | | |");
                    continue;
                }
                if (settings.dryRun) {
                    out.println("| " + label(pair) + " | " + String.join(", ", pair.slugs()) + " | "
                            + BenchCommand.gib(pair.fileBytes()) + " | to be measured | | | | |");
                    continue;
                }
                long pairStarted = System.nanoTime();
                String row = measure(pair).row();
                out.println(row);
                if (settings.out != null) append(row);
                err.printf(Locale.ROOT, "inferd bench: %s took %s%n", label(pair), minutes(System.nanoTime() - pairStarted));
            }
        } finally {
            stopAndClean();
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run
            }
        }
        out.println();
        for (CatalogDecodePairs.Without w : catalog.without()) {
            out.println("not in the table: " + w.slug() + " (" + w.reason() + ")");
        }
        out.println("cpu: " + CpuInfo.detect().describe());
        err.printf(Locale.ROOT, "inferd bench: the table took %s%n", minutes(System.nanoTime() - started));
        return 0;
    }

    private String whySkip(CatalogDecodePairs.Pair pair) throws IOException {
        long size = pair.fileBytes();
        if (size > settings.maxSize) {
            return "larger than --max-size " + BenchCommand.gib(settings.maxSize);
        }
        Files.createDirectories(settings.workDir);
        // the file, and inferd's decode copies of about its size in the copy cache
        long needed = 2 * size + (1L << 30);
        long free = Files.getFileStore(settings.workDir).getUsableSpace();
        if (needed > free) {
            return "needs about " + BenchCommand.gib(needed) + " of disk in " + settings.workDir + ", "
                    + BenchCommand.gib(free) + " free";
        }
        return null;
    }

    private Measured measure(CatalogDecodePairs.Pair pair) throws IOException, InterruptedException {
        Path file = settings.workDir.resolve(pair.spec().fileName());
        Path home = settings.workDir.resolve("home");
        try {
            err.printf(Locale.ROOT, "inferd bench: writing %s (%s)...%n", file, BenchCommand.gib(pair.fileBytes()));
            long t0 = System.nanoTime();
            pair.spec().write(file);
            err.printf(Locale.ROOT, "inferd bench: written in %s%n", minutes(System.nanoTime() - t0));
            var inferd = new ArrayList<Double>();
            var fractions = new ArrayList<Double>();
            var llama = new ArrayList<Double>();
            for (int round = 1; round <= settings.rounds; round++) {
                // inferd first in odd rounds, llama.cpp first in even ones: a drift of the machine's speed
                // during a round then favours each engine in turn
                boolean inferdFirst = round % 2 == 1 || settings.llamaBench == null;
                for (int turn = 0; turn < 2; turn++) {
                    if ((turn == 0) == inferdFirst) {
                        JsonNode result = runInferd(file, home);
                        inferd.add(result.path("tokens_per_s").asDouble());
                        if (result.hasNonNull("limit_fraction")) fractions.add(result.get("limit_fraction").asDouble());
                        err.printf(Locale.ROOT, "inferd bench: round %d, inferd %.2f t/s (%.0f%% of the limit)%n", round,
                                inferd.getLast(), 100 * result.path("limit_fraction").asDouble());
                    } else if (settings.llamaBench != null) {
                        llama.add(runLlamaBench(file));
                        err.printf(Locale.ROOT, "inferd bench: round %d, llama.cpp %.2f t/s%n", round, llama.getLast());
                    }
                }
            }
            return new Measured(label(pair), pair.slugs(), Files.size(file), inferd, fractions, llama);
        } finally {
            Files.deleteIfExists(file);
            deleteTree(home);
        }
    }

    /** {@code inferd bench --json} in a JVM of its own, with this JVM's options; its copy cache under {@code home}. */
    private JsonNode runInferd(Path file, Path home) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            // the class-data archive belongs to the launcher's process; a second writer would spoil it
            if (arg.startsWith("-XX:SharedArchiveFile") || arg.contains("AutoCreateSharedArchive") || arg.startsWith("-Xlog:cds")) continue;
            command.add(arg);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "bench",
                "--model", file.toString(), "-p", "0", "-n", String.valueOf(settings.tokens),
                "-r", String.valueOf(settings.repetitions), "-t", String.valueOf(settings.threads), "--json"));
        var builder = new ProcessBuilder(command);
        builder.environment().put("INFERD_HOME", home.toString());
        String output = runProcess(builder, "inferd bench");
        return output.lines().filter(l -> l.startsWith("{")).map(CatalogDecodeTable::parse)
                .filter(n -> n.path("test").asText().startsWith("tg")).findFirst()
                .orElseThrow(() -> new IOException("inferd bench printed no tg result: " + output));
    }

    private double runLlamaBench(Path file) throws IOException, InterruptedException {
        var builder = new ProcessBuilder(settings.llamaBench.toString(), "-m", file.toString(), "-p", "0",
                "-n", String.valueOf(settings.tokens), "-r", String.valueOf(settings.repetitions),
                "-t", String.valueOf(settings.threads), "-o", "json");
        String output = runProcess(builder, "llama-bench");
        JsonNode results = parse(output.substring(Math.max(0, output.indexOf('['))));
        for (JsonNode r : results) {
            if (r.path("n_gen").asInt() > 0) return r.path("avg_ts").asDouble();
        }
        throw new IOException("llama-bench printed no tg result: " + output);
    }

    /** Runs a measurement to its end; its stderr goes to a log in the work directory, shown if it fails. */
    private String runProcess(ProcessBuilder builder, String what) throws IOException, InterruptedException {
        Path log = settings.workDir.resolve("last-run.log");
        builder.redirectError(log.toFile());
        Process process = builder.start();
        running = process;
        try {
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int exit = process.waitFor();
            if (exit != 0) {
                throw new IOException(what + " failed (exit " + exit + "): " + Files.readString(log).strip());
            }
            return output;
        } finally {
            running = null;
            if (process.isAlive()) process.destroyForcibly();
        }
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalStateException("a benchmark printed JSON that does not parse: " + json, e);
        }
    }

    private void append(String lines) throws IOException {
        Files.writeString(settings.out, lines + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** On the way out (also on Ctrl-C): the measurement under way is stopped and the work directory removed. */
    private void stopAndClean() {
        Process p = running;
        if (p != null) p.destroyForcibly();
        try {
            deleteTree(settings.workDir);
        } catch (IOException e) {
            err.println("inferd bench: could not remove " + settings.workDir + ": " + e.getMessage());
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    private static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String minutes(long nanos) {
        Duration d = Duration.ofNanos(nanos);
        return String.format(Locale.ROOT, "%d min %02d s", d.toMinutes(), d.toSecondsPart());
    }
}
