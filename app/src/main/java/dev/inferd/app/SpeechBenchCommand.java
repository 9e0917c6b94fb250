package dev.inferd.app;

import dev.inferd.app.models.ModelsConfig;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import dev.inferd.speech.audio.AudioDecoder;
import dev.inferd.speech.whisper.SyntheticWhisper;
import dev.inferd.speech.whisper.TranscriptionOptions;
import dev.inferd.speech.whisper.WhisperModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * {@code inferd bench-speech}: the Whisper encoder's time per 30 s window and the real-time factor of
 * transcribing a clip end to end (greedy, no fallback), per model. Synthetic models (random weights,
 * real shapes) are written once to $INFERD_HOME/synthetic/. A benchmark prints figures; it asserts nothing.
 */
@Command(name = "bench-speech", mixinStandardHelpOptions = true,
        description = {"Measure Whisper: encoder seconds per 30 s window, and the time and real-time factor of transcribing a clip.",
                "Run whisper.cpp's whisper-bench and whisper-cli with the same files beside it to compare."})
public final class SpeechBenchCommand implements Callable<Integer> {

    @Option(names = {"-m", "--model"}, split = ",", defaultValue = "whisper-tiny:F16,whisper-base:F16",
            paramLabel = "<ggml-*.bin|shape:type>", description = "whisper.cpp model files or synthetic shapes (default: ${DEFAULT-VALUE})")
    List<String> models;

    @Option(names = "--audio", paramLabel = "<file>", description = "the clip to transcribe (default: ../shared/fixtures/audio/jfk.wav)")
    Path audio;

    @Option(names = {"-r", "--repetitions"}, defaultValue = "3", description = "runs of each measurement, the median is shown (default: ${DEFAULT-VALUE})")
    int repetitions;

    @Option(names = {"-t", "--threads"}, paramLabel = "<n>", description = "worker threads (default: one per core)")
    Integer threads;

    private final Function<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    public SpeechBenchCommand() {
        this(System::getenv, System.out, System.err);
    }

    SpeechBenchCommand(Function<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        try {
            if (repetitions < 1) throw new IllegalArgumentException("-r must be at least 1");
            if (threads != null) WorkerPool.configure(threads);
            Path clip = audio != null ? audio : Path.of("../shared/fixtures/audio/jfk.wav");
            if (!Files.isRegularFile(clip)) throw new IllegalArgumentException("no audio file " + clip + " (give one with --audio)");
            float[] samples = new AudioDecoder().decode(Files.readAllBytes(clip)).samples();
            double seconds = samples.length / 16_000.0;
            out.printf(Locale.ROOT, "| %-28s | %7s | %14s | %12s | %6s |%n", "model", "threads", "encoder s/30s", "clip s", "RTF");
            out.printf(Locale.ROOT, "| %-28s | %7s | %14s | %12s | %6s |%n", "-".repeat(28), "------:", "-------------:", "-----------:", "-----:");
            for (String m : models) {
                Path file = resolve(m.strip());
                try (var model = WhisperModel.open(file)) {
                    var transcriber = model.newTranscriber();
                    transcriber.encodeFirstWindow(samples); // warm-up
                    double encoder = median(() -> transcriber.encodeFirstWindow(samples));
                    var options = new TranscriptionOptions("en", false, null, 0, false, true, true, 0, false);
                    double total = median(() -> transcriber.transcribe(samples, options));
                    out.printf(Locale.ROOT, "| %-28s | %7d | %14.3f | %12.3f | %6.3f |%n", m, WorkerPool.shared().threads(), encoder, total, total / seconds);
                }
            }
            out.printf(Locale.ROOT, "clip: %s, %.2f s%n", clip, seconds);
            return 0;
        } catch (IllegalArgumentException | IOException e) {
            err.println("inferd bench-speech: " + e.getMessage());
            return 1;
        }
    }

    private double median(Runnable run) {
        double[] times = new double[repetitions];
        for (int i = 0; i < repetitions; i++) {
            long t0 = System.nanoTime();
            run.run();
            times[i] = (System.nanoTime() - t0) / 1e9;
        }
        Arrays.sort(times);
        return times[repetitions / 2];
    }

    private Path resolve(String m) throws IOException {
        Path p = Path.of(m);
        if (m.endsWith(".bin") && Files.isRegularFile(p)) return p;
        var spec = SyntheticWhisper.Spec.parse(m);
        Path file = ModelsConfig.fromEnvironment(env).home().resolve("synthetic").resolve(spec.fileName());
        if (!Files.isRegularFile(file)) {
            err.printf(Locale.ROOT, "inferd bench-speech: writing %s...%n", file);
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + ".part");
            try {
                spec.write(tmp);
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        return file;
    }
}
