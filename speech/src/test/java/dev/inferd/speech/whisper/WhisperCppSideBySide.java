package dev.inferd.speech.whisper;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import dev.inferd.speech.audio.AudioDecoder;
import io.github.givimad.whisperjni.WhisperJNI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * A benchmark, not a test: this project's Whisper and whisper.cpp (whisper-jni) on the same synthetic
 * model files and the same samples, one after the other, 2 threads each, so that both meet the same
 * load. Prints, per model, the time of a 1.1 s clip (one 30 s window through the encoder and a few
 * decoder steps: the encoder's time, nearly) and of all of jfk.wav (greedy, no fallback), medians of
 * three. Run with {@code -Dinferd.bench=true}; the models are those {@code ./inferd bench-speech}
 * writes to $INFERD_HOME/synthetic (default ~/.inferd/synthetic), given by {@code -Dinferd.bench.models}.
 */
@EnabledIfSystemProperty(named = "inferd.bench", matches = "true")
class WhisperCppSideBySide {
    private static final int THREADS = 2;
    private static final int RUNS = 3;

    @Test
    void printTimes() throws Exception {
        WorkerPool.configure(THREADS);
        WhisperJNI.loadLibrary();
        var jni = new WhisperJNI();
        System.out.println("whisper.cpp system info: " + jni.getSystemInfo());
        float[] jfk = new AudioDecoder().decode(Files.readAllBytes(Fixtures.require("audio/jfk.wav"))).samples();
        float[] short1 = Arrays.copyOf(jfk, 17_600);
        String home = System.getenv().getOrDefault("INFERD_HOME", System.getProperty("user.home") + "/.inferd");
        String models = System.getProperty("inferd.bench.models", "ggml-whisper-tiny-F16-seed1.bin,ggml-whisper-base-F16-seed1.bin");
        System.out.printf(Locale.ROOT, "| %-34s | %-11s | %10s | %10s |%n", "model", "engine", "1.1 s clip", "jfk.wav");
        for (String name : models.split(",")) {
            Path file = Path.of(home, "synthetic", name.strip());
            try (var model = WhisperModel.open(file); var ctx = jni.init(file)) {
                var transcriber = model.newTranscriber();
                var options = TranscriptionOptions.defaults().withLanguage("en").withFallback(false);
                var params = WhisperCppAgreementTest.greedyEnglish(THREADS);
                transcriber.transcribe(short1, options);
                jni.full(ctx, params, short1, short1.length);
                double oursShort = median(() -> transcriber.transcribe(short1, options));
                double cppShort = median(() -> jni.full(ctx, params, short1, short1.length));
                double oursJfk = median(() -> transcriber.transcribe(jfk, options));
                double cppJfk = median(() -> jni.full(ctx, params, jfk, jfk.length));
                int ourSegments = transcriber.transcribe(jfk, options).segments().size();
                jni.full(ctx, params, jfk, jfk.length);
                int cppSegments = jni.fullNSegments(ctx);
                System.out.printf(Locale.ROOT, "| %-34s | %-11s | %10.3f | %10.3f |  %d segments%n", name, "inferd", oursShort, oursJfk, ourSegments);
                System.out.printf(Locale.ROOT, "| %-34s | %-11s | %10.3f | %10.3f |  %d segments%n", name, "whisper.cpp", cppShort, cppJfk, cppSegments);
                System.out.printf(Locale.ROOT, "| %-34s | %-11s | %9.2fx | %9.2fx |%n", name, "ratio", oursShort / cppShort, oursJfk / cppJfk);
            }
        }
    }

    private static double median(Runnable run) {
        double[] t = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            long t0 = System.nanoTime();
            run.run();
            t[i] = (System.nanoTime() - t0) / 1e9;
        }
        Arrays.sort(t);
        return t[RUNS / 2];
    }
}
