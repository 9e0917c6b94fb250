package dev.inferd.speech.whisper;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.speech.audio.AudioDecoder;
import io.github.givimad.whisperjni.WhisperFullParams;
import io.github.givimad.whisperjni.WhisperJNI;
import io.github.givimad.whisperjni.WhisperSamplingStrategy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same model file and the same samples through whisper.cpp (whisper-jni) and through this
 * project: greedy decoding without fallback gives the same segments, times and tokens. whisper-jni
 * has no call that returns token ids; with {@code print_special} whisper.cpp writes every token of a
 * segment into its text, the special and timestamp tokens by their names ({@code [_BEG_]},
 * {@code [_TT_150]}, ...), and this project's segment tokens, written the same way, must give the same
 * string. The model is
 * synthetic, with a token embedding wide enough that every greedy choice wins by a clear margin.
 * Slow: the random model fills every window with 220 tokens, and whisper.cpp decodes them too.
 */
@Tag("slow")
class WhisperCppAgreementTest {
    static final WhisperShape MICRO = SyntheticWhisperTest.MICRO;

    @TempDir
    static Path tmp;
    static Path modelFile;
    static WhisperModel model;

    @BeforeAll
    static void writeModel() throws IOException {
        modelFile = new SyntheticWhisper.Spec(MICRO, GGMLType.F16, 3, 1.0f).write(tmp.resolve("micro.bin"));
        model = WhisperModel.open(modelFile);
    }

    @AfterAll
    static void close() {
        if (model != null) model.close();
    }

    /** A segment: its times in 10 ms and its tokens written out. */
    record Seg(long t0, long t1, String tokens) {
    }

    @ParameterizedTest
    @ValueSource(strings = {"jfk.wav", "LDC93S1.wav", "multilingual_en_de.mp3"})
    void sameSegmentsAsWhisperCpp(String clip) throws Exception {
        float[] samples = new AudioDecoder().decode(Files.readAllBytes(Fixtures.require("audio/" + clip))).samples();
        long t0 = System.nanoTime();
        List<Seg> reference = whisperCpp(samples);
        long t1 = System.nanoTime();
        var ours = model.newTranscriber().transcribe(samples,
                TranscriptionOptions.defaults().withLanguage("en").withFallback(false));
        System.err.printf("%s: whisper.cpp %.1f s, ours %.1f s%n", clip, (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9);
        var mine = new ArrayList<Seg>();
        for (var s : ours.segments()) mine.add(new Seg(Math.round(s.start() * 100), Math.round(s.end() * 100), tokenNames(s.tokens())));
        assertThat(reference).as("whisper.cpp's segments").isNotEmpty();
        assertThat(mine).isEqualTo(reference);
    }

    /** Tokens as whisper.cpp writes them into a segment's text with print_special: text as its bytes, specials by name. */
    static String tokenNames(List<Integer> ids) {
        var tokenizer = model.tokenizer();
        var sp = tokenizer.specials();
        var out = new StringBuilder();
        for (int id : ids) {
            String name;
            if (id < sp.endOfText()) name = new String(tokenizer.bytes(id), java.nio.charset.StandardCharsets.UTF_8);
            else if (id == sp.endOfText()) name = "[_EOT_]";
            else if (id == sp.startOfTranscript()) name = "[_SOT_]";
            else if (id == sp.translate()) name = "[_TRANSLATE_]";
            else if (id == sp.transcribe()) name = "[_TRANSCRIBE_]";
            else if (id == sp.startOfLm()) name = "[_SOLM_]";
            else if (id == sp.startOfPrev()) name = "[_PREV_]";
            else if (id == sp.noSpeech()) name = "[_NOSP_]";
            else if (id == sp.noTimestamps()) name = "[_NOT_]";
            else if (id == sp.timestampBegin()) name = "[_BEG_]";
            else if (id > sp.timestampBegin()) name = "[_TT_" + (id - sp.timestampBegin()) + "]";
            else if (sp.isLanguage(id)) name = "[_LANG_" + Languages.byIndex(id - sp.startOfTranscript() - 1).code() + "]";
            else name = "[_extra_token_" + id + "]";
            out.append(name);
        }
        return out.toString();
    }

    /** whisper.cpp's greedy decoding in English, without fallback and without printing to the console. */
    static WhisperFullParams greedyEnglish(int threads) {
        var params = new WhisperFullParams(WhisperSamplingStrategy.GREEDY);
        params.language = "en";
        params.temperature = 0;
        params.temperatureInc = 0;
        params.nThreads = threads;
        params.printProgress = false;
        params.printRealtime = false;
        params.printTimestamps = false;
        return params;
    }

    private static List<Seg> whisperCpp(float[] samples) throws IOException {
        WhisperJNI.loadLibrary();
        var jni = new WhisperJNI();
        var params = greedyEnglish(2);
        params.printSpecial = true;
        var out = new ArrayList<Seg>();
        try (var ctx = jni.init(modelFile)) {
            int rc = jni.full(ctx, params, samples, samples.length);
            assertThat(rc).isZero();
            for (int i = 0; i < jni.fullNSegments(ctx); i++) {
                // ours end subtitles where the audio ends; whisper.cpp's may run into the window's silence
                long end = Math.round(samples.length / 160.0);
                long t0 = Math.min(jni.fullGetSegmentTimestamp0(ctx, i), end);
                out.add(new Seg(t0, Math.max(t0, Math.min(jni.fullGetSegmentTimestamp1(ctx, i), end)), jni.fullGetSegmentText(ctx, i)));
            }
        }
        return out;
    }
}
