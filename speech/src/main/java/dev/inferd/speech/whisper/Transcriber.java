package dev.inferd.speech.whisper;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.zip.Deflater;

/**
 * Whisper's decoding over a whole recording: 30 s windows, each encoded and then decoded token by
 * token under the timestamp rules, the next window starting at the last timestamp of this one.
 *
 * <p>Each step follows whisper.cpp, so both give the same tokens on the same file: the logit filters
 * (blank at the start, special and language tokens, timestamps in pairs and never going back, the
 * first timestamp within 1 s), a timestamp is taken whenever the timestamps together are likelier
 * than any text token, segments are cut at timestamps, text after a window's last timestamp is
 * decoded again in the next window, and a window that makes no progress fails. On top of that,
 * Whisper's own temperature fallback (compression ratio, average log-probability) and no-speech
 * skipping, and the probability of no speech at the start-of-transcript token.
 *
 * <p>Not thread-safe: one per transcription in progress.
 */
public final class Transcriber {
    private static final int CHUNK_FRAMES = LogMel.WINDOW_FRAMES;

    private final WhisperModel model;
    private final WhisperTokenizer tokenizer;
    private final SpecialTokens sp;
    private final WhisperEncoder encoder;
    private final WhisperDecoder decoder;
    private final float[] window;
    private final float[] logits, logprobs;
    private final int[] batch;
    private final int blank;
    private final AlignmentHeads alignmentHeads;
    /** The alignment heads' cross-attention scores, made on the first request for word times. */
    private float[][] alignmentScores;
    /** Seconds of audio in the transcription in progress. */
    private double duration;

    Transcriber(WhisperModel model) {
        this.model = model;
        tokenizer = model.tokenizer();
        sp = tokenizer.specials();
        encoder = new WhisperEncoder(model.layers());
        decoder = new WhisperDecoder(model.layers());
        window = new float[model.hparams().nMels() * CHUNK_FRAMES];
        logits = new float[sp.vocabSize()];
        logprobs = new float[sp.vocabSize()];
        batch = new int[decoder.contextLength()];
        blank = tokenizer.idOf(" ");
        alignmentHeads = AlignmentHeads.of(model.hparams());
    }

    /** A sampled token: the best timestamp at that step ({@code tid}), and the token's probability and log-probability. */
    record Sampled(int id, int tid, float p, float logprob) {
    }

    /** One window's decoding at one temperature. */
    private record Attempt(List<Sampled> tokens, int resultLength, int seekDelta, boolean failed, double avgLogprob,
                           double compressionRatio, float temperature) {
    }

    public Transcript transcribe(float[] samples, TranscriptionOptions options) {
        return transcribe(samples, options, () -> false);
    }

    /** {@code cancelled} is polled between tokens: when it turns true, the transcription stops with a {@link java.util.concurrent.CancellationException}. */
    public Transcript transcribe(float[] samples, TranscriptionOptions options, BooleanSupplier cancelled) {
        duration = samples.length / (double) dev.inferd.speech.audio.Audio.SAMPLE_RATE;
        var mel = model.logMel().compute(samples);
        // whisper.cpp's count of frames with audio in them
        int seekEnd = Math.max(1 + (samples.length - 200) / LogMel.HOP, 101);
        String language = options.language();
        if (!model.hparams().multilingual()) language = "en";
        if (language == null) language = detectLanguage(mel).code();
        var lang = Languages.byCode(language).orElseThrow(() -> new IllegalArgumentException("unknown language " + options.language()));

        var init = new ArrayList<Integer>();
        init.add(sp.startOfTranscript());
        if (model.hparams().multilingual()) {
            init.add(sp.language(lang.index()));
            init.add(options.translate() ? sp.translate() : sp.transcribe());
        }
        var promptPast = new ArrayList<Integer>();
        if (options.prompt() != null && !options.prompt().isBlank()) promptPast.addAll(tokenizer.encode(" " + options.prompt().strip()));

        var temperatures = new ArrayList<Float>();
        if (options.fallback() && options.temperature() == 0) {
            for (float t = 0; t < 1 + 1e-6f; t += TranscriptionOptions.TEMPERATURE_STEP) temperatures.add(t);
        } else {
            temperatures.add(options.temperature());
        }
        var random = new SplittableRandom(options.seed());
        var segments = new ArrayList<Transcript.Segment>();
        var words = new ArrayList<Transcript.Word>();
        int seek = 0;
        while (seek + 100 < seekEnd) {
            if (cancelled.getAsBoolean()) throw new java.util.concurrent.CancellationException("transcription cancelled");
            decoder.setAudio(encoder.encode(mel.window(seek, window)));
            if (seek > 0 && seek + 500 >= seekEnd) promptPast.clear();
            Attempt best = null;
            float noSpeech = 0;
            List<Integer> prompt = List.of();
            for (int it = 0; it < temperatures.size(); it++) {
                float t = temperatures.get(it);
                prompt = new ArrayList<>();
                if (!promptPast.isEmpty() && t < 0.5f) {
                    int take = Math.min(decoder.contextLength() / 2, promptPast.size());
                    prompt.add(sp.startOfPrev());
                    prompt.addAll(promptPast.subList(promptPast.size() - take, promptPast.size()));
                }
                prompt.addAll(init);
                noSpeech = startWindow(prompt);
                Attempt a = decodeWindow(seek, seekEnd, prompt.size(), t, options, random, cancelled);
                best = a;
                boolean last = it == temperatures.size() - 1;
                if (last) break;
                boolean tooRepetitive = a.compressionRatio() > TranscriptionOptions.COMPRESSION_RATIO_THRESHOLD;
                boolean unlikely = a.avgLogprob() < TranscriptionOptions.LOGPROB_THRESHOLD;
                boolean silent = noSpeech > TranscriptionOptions.NO_SPEECH_THRESHOLD;
                if (silent && unlikely) break;
                if (!a.failed() && !tooRepetitive && !unlikely) break;
            }
            if (options.fallback() && noSpeech > TranscriptionOptions.NO_SPEECH_THRESHOLD
                    && best.avgLogprob() < TranscriptionOptions.LOGPROB_THRESHOLD) {
                // silence: skip the window
                seek += Math.min(CHUNK_FRAMES, seekEnd - seek);
                continue;
            }
            // a failed window still gives its segments (all its tokens), but no context to the next
            List<Sampled> tokens = best.tokens().subList(0, best.failed() ? best.tokens().size() : best.resultLength());
            promptPast.clear();
            if (options.conditionOnPreviousText() && best.temperature() < 0.5f) {
                if (!prompt.isEmpty() && prompt.getFirst() == sp.startOfPrev()) promptPast.addAll(prompt.subList(1, prompt.size() - init.size()));
                for (int i = 0; i < Math.min(best.resultLength(), best.tokens().size()); i++) promptPast.add(best.tokens().get(i).id());
            }
            int before = segments.size();
            addSegments(segments, tokens, seek, best, noSpeech);
            if (options.wordTimestamps()) alignWords(segments.subList(before, segments.size()), init, seek, seekEnd, language, words);
            seek += best.seekDelta();
        }
        var text = new StringBuilder();
        for (var s : segments) text.append(s.text());
        return new Transcript(language, samples.length / (double) dev.inferd.speech.audio.Audio.SAMPLE_RATE, text.toString().strip(), List.copyOf(segments), List.copyOf(words));
    }

    /** The language detected on the first window of {@code samples}, as {@link #transcribe} would when none is given. */
    String detectLanguage(float[] samples) {
        return detectLanguage(model.logMel().compute(samples)).code();
    }

    /** Encodes the first 30 s window of {@code samples} and nothing else: for benchmarks of the encoder. */
    public void encodeFirstWindow(float[] samples) {
        var mel = model.logMel().compute(samples);
        encoder.encode(mel.window(0, window));
    }

    /** Runs the prompt; returns the probability of no speech, read at the start-of-transcript token. */
    private float startWindow(List<Integer> prompt) {
        decoder.reset();
        int sot = prompt.indexOf(sp.startOfTranscript());
        for (int i = 0; i <= sot; i++) batch[i] = prompt.get(i);
        float[] l = decoder.decode(batch, sot + 1);
        float noSpeech = softmaxAt(l, sp.noSpeech());
        int rest = prompt.size() - sot - 1;
        if (rest > 0) {
            for (int i = 0; i < rest; i++) batch[i] = prompt.get(sot + 1 + i);
            l = decoder.decode(batch, rest);
        }
        System.arraycopy(l, 0, logits, 0, logits.length);
        return noSpeech;
    }

    private Attempt decodeWindow(int seek, int seekEnd, int promptLength, float temperature, TranscriptionOptions options,
                                 SplittableRandom random, BooleanSupplier cancelled) {
        var tokens = new ArrayList<Sampled>();
        int seekDelta = CHUNK_FRAMES;
        int resultLength = 0;
        boolean hasTimestamp = false, failed = false, completed = false;
        int max = decoder.contextLength() / 2 - 4;
        // logits holds the prompt's last logits
        for (int i = 0; i < max && promptLength + i < decoder.contextLength(); i++) {
            if (cancelled.getAsBoolean()) throw new java.util.concurrent.CancellationException("transcription cancelled");
            processLogits(tokens, temperature, hasTimestamp, seekDelta, options);
            Sampled token = sample(temperature, random);
            tokens.add(token);
            if (token.id() > sp.timestampBegin()) {
                int newDelta = 2 * (token.id() - sp.timestampBegin());
                if (hasTimestamp && seekDelta > newDelta && resultLength < i) {
                    failed = true;
                    break;
                }
                seekDelta = newDelta;
                resultLength = i + 1;
                hasTimestamp = true;
            }
            if (token.id() == sp.endOfText() || (hasTimestamp && seek + seekDelta + 100 >= seekEnd)) {
                if (resultLength == 0) {
                    if (seek + seekDelta + 100 >= seekEnd) {
                        resultLength = i + 1;
                    } else {
                        failed = true;
                        break;
                    }
                }
                completed = true;
                break;
            }
            if (i == max - 1 && (resultLength == 0 || seekDelta < CHUNK_FRAMES / 2)) {
                failed = true;
                break;
            }
            batch[0] = token.id();
            System.arraycopy(decoder.decode(batch, 1), 0, logits, 0, logits.length);
            model.countDecoderStep();
        }
        if (!completed && !failed && resultLength == 0) failed = true;
        // a failed window is judged on all its tokens
        int n = failed ? tokens.size() : resultLength;
        double sum = 0;
        for (int i = 0; i < n; i++) sum += tokens.get(i).logprob();
        double avg = n == 0 ? 0 : sum / n;
        var textTokens = new ArrayList<Integer>();
        for (int i = 0; i < n; i++) if (tokens.get(i).id() < sp.endOfText()) textTokens.add(tokens.get(i).id());
        double ratio = compressionRatio(tokenizer.decode(textTokens));
        return new Attempt(tokens, resultLength, seekDelta, failed, avg, ratio, temperature);
    }

    /** whisper.cpp's logit filters, then log-softmax into {@link #logprobs}; suppressed entries are -inf in both. */
    private void processLogits(List<Sampled> tokens, float temperature, boolean hasTimestamp, int seekDelta, TranscriptionOptions options) {
        int n = logits.length;
        float inf = Float.NEGATIVE_INFINITY;
        if (temperature > 0) for (int i = 0; i < n; i++) logits[i] /= temperature;
        boolean initial = tokens.isEmpty();
        if (options.suppressBlank() && initial) {
            logits[sp.endOfText()] = inf;
            if (blank >= 0) logits[blank] = inf;
        }
        logits[sp.noTimestamps()] = inf;
        logits[sp.startOfTranscript()] = inf;
        logits[sp.noSpeech()] = inf;
        logits[sp.startOfLm()] = inf;
        logits[sp.translate()] = inf;
        logits[sp.transcribe()] = inf;
        logits[sp.startOfPrev()] = inf;
        for (int i = sp.startOfTranscript() + 1; i < sp.translate(); i++) logits[i] = inf;
        // timestamps come in pairs, except right before the end of text
        boolean lastWasTimestamp = !tokens.isEmpty() && tokens.getLast().id() >= sp.timestampBegin();
        boolean penultimateWasTimestamp = tokens.size() < 2 || tokens.get(tokens.size() - 2).id() >= sp.timestampBegin();
        if (lastWasTimestamp) {
            if (penultimateWasTimestamp) {
                for (int i = sp.timestampBegin(); i < n; i++) logits[i] = inf;
            } else {
                for (int i = 0; i < sp.endOfText(); i++) logits[i] = inf;
            }
        }
        if (initial) {
            int maxInitial = Math.round(TranscriptionOptions.MAX_INITIAL_TIMESTAMP / 0.02f);
            for (int i = sp.timestampBegin() + maxInitial + 1; i < n; i++) logits[i] = inf;
        }
        // timestamps never go back
        if (hasTimestamp) {
            int from = seekDelta / 2;
            for (int i = sp.timestampBegin(); i < sp.timestampBegin() + from; i++) logits[i] = inf;
        }
        logSoftmax();
        // when the timestamps together are likelier than any text token, a timestamp it is
        float tsMax = inf;
        for (int i = sp.timestampBegin(); i < n; i++) tsMax = Math.max(tsMax, logprobs[i]);
        float timestampLogprob = inf;
        if (tsMax > inf) {
            double s = 0;
            for (int i = sp.timestampBegin(); i < n; i++) if (logprobs[i] > inf) s += Math.exp(logprobs[i] - tsMax);
            timestampLogprob = (float) Math.log(s) + tsMax;
        }
        float textMax = inf;
        for (int i = 0; i < sp.timestampBegin(); i++) textMax = Math.max(textMax, logprobs[i]);
        if (timestampLogprob > textMax) {
            for (int i = 0; i < sp.timestampBegin(); i++) {
                logits[i] = inf;
                logprobs[i] = inf;
            }
        }
    }

    private void logSoftmax() {
        float max = Float.NEGATIVE_INFINITY;
        for (float v : logits) max = Math.max(max, v);
        double sum = 0;
        for (float v : logits) if (v > Float.NEGATIVE_INFINITY) sum += Math.exp(v - max);
        float lse = (float) Math.log(sum) + max;
        for (int i = 0; i < logits.length; i++) logprobs[i] = logits[i] > Float.NEGATIVE_INFINITY ? logits[i] - lse : Float.NEGATIVE_INFINITY;
    }

    /** The argmax at temperature 0, else a draw from the softmax of the (already scaled) logits. */
    private Sampled sample(float temperature, SplittableRandom random) {
        int n = logits.length;
        // the probabilities are the softmax of the filtered logits (after the timestamp rule's removal)
        float max = Float.NEGATIVE_INFINITY;
        for (float v : logits) max = Math.max(max, v);
        double sum = 0;
        for (float v : logits) if (v > Float.NEGATIVE_INFINITY) sum += Math.exp(v - max);
        int tid = -1;
        double tsBest = 0;
        for (int i = sp.timestampBegin(); i < n; i++) {
            double p = logits[i] > Float.NEGATIVE_INFINITY ? Math.exp(logits[i] - max) / sum : 0;
            if (tsBest < p) {
                tsBest = p;
                tid = i;
            }
        }
        int id = 0;
        double p = 0;
        if (temperature == 0) {
            for (int i = 0; i < n; i++) {
                if (logits[i] == Float.NEGATIVE_INFINITY) continue;
                double q = Math.exp(logits[i] - max) / sum;
                if (p < q) {
                    p = q;
                    id = i;
                }
            }
        } else {
            double u = random.nextDouble() * sum, acc = 0;
            id = -1;
            for (int i = 0; i < n && id < 0; i++) {
                if (logits[i] == Float.NEGATIVE_INFINITY) continue;
                acc += Math.exp(logits[i] - max);
                if (acc >= u) id = i;
            }
            if (id < 0) id = argmax(logits);
            p = Math.exp(logits[id] - max) / sum;
        }
        if (id >= sp.timestampBegin()) tid = id;
        return new Sampled(id, tid, (float) p, logprobs[id]);
    }

    private static int argmax(float[] x) {
        int best = 0;
        for (int i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
        return best;
    }

    /** Cuts the window's tokens into segments at timestamps, as whisper.cpp does; times in seconds from the start. */
    private void addSegments(List<Transcript.Segment> segments, List<Sampled> tokens, int seek, Attempt a, float noSpeech) {
        if (tokens.isEmpty()) return;
        int t0 = seek + 2 * (tokens.getFirst().tid() - sp.timestampBegin());
        int i0 = 0;
        var text = new ArrayList<Integer>();
        for (int i = 0; i < tokens.size(); i++) {
            int id = tokens.get(i).id();
            if (id < sp.endOfText()) text.add(id);
            if (id > sp.timestampBegin()) {
                int t1 = seek + 2 * (tokens.get(i).tid() - sp.timestampBegin());
                if (!text.isEmpty()) segments.add(segment(segments.size(), seek, t0, t1, text, ids(tokens, i0, i + 1), a, noSpeech));
                text.clear();
                while (i < tokens.size() && tokens.get(i).id() > sp.timestampBegin()) i++;
                i--;
                t0 = t1;
                i0 = i + 1;
            }
        }
        if (!text.isEmpty()) segments.add(segment(segments.size(), seek, t0, seek + a.seekDelta(), text, ids(tokens, i0, tokens.size()), a, noSpeech));
    }

    private static List<Integer> ids(List<Sampled> tokens, int from, int to) {
        var out = new ArrayList<Integer>(to - from);
        for (int i = from; i < to; i++) out.add(tokens.get(i).id());
        return out;
    }

    private Transcript.Segment segment(int id, int seek, int t0, int t1, List<Integer> text, List<Integer> ids, Attempt a, float noSpeech) {
        // timestamps may point past the end of the audio (into the window's silence): subtitles stop where the audio does
        double start = Math.min(t0 / 100.0, duration), end = Math.max(start, Math.min(t1 / 100.0, duration));
        return new Transcript.Segment(id, seek, start, end, tokenizer.decode(text), ids,
                a.temperature(), a.avgLogprob(), a.compressionRatio(), noSpeech);
    }

    /**
     * The words of one window's segments with their times: the decoder runs once more over the
     * start of transcript, no-timestamps, the segments' text tokens and end of text, keeping the
     * alignment heads' cross-attention, from which {@link WordAlignment} times the words. Each word
     * is kept within its segment and after the word before it.
     */
    private void alignWords(List<Transcript.Segment> windowSegments, List<Integer> init, int seek, int seekEnd, String language,
                            List<Transcript.Word> out) {
        var text = new ArrayList<Integer>();
        var perSegment = new int[windowSegments.size()];
        for (int k = 0; k < perSegment.length; k++) {
            for (int id : windowSegments.get(k).tokens()) {
                if (id < sp.endOfText()) {
                    text.add(id);
                    perSegment[k]++;
                }
            }
        }
        int rows = init.size() + 1 + text.size() + 1;
        if (text.isEmpty() || rows > decoder.contextLength()) return;
        int positions = decoder.audioPositions();
        int frames = Math.max(1, Math.min(CHUNK_FRAMES, seekEnd - seek) / 2);
        if (alignmentScores == null) alignmentScores = new float[alignmentHeads.count()][decoder.contextLength() * positions];
        int n = 0;
        for (int id : init) batch[n++] = id;
        batch[n++] = sp.noTimestamps();
        for (int id : text) batch[n++] = id;
        batch[n++] = sp.endOfText();
        decoder.reset();
        decoder.capture(alignmentHeads, alignmentScores);
        try {
            decoder.decode(batch, n);
        } finally {
            decoder.capture(null, null);
        }
        float[] all = WordAlignment.weights(alignmentScores, rows, positions, frames);
        // the rows that predict the text tokens and the end of text
        float[] matrix = java.util.Arrays.copyOfRange(all, init.size() * frames, (rows - 1) * frames);
        var timed = WordAlignment.tidy(WordAlignment.time(matrix, frames, WordAlignment.words(text, tokenizer, language)));
        double offset = seek / 100.0;
        double previousEnd = out.isEmpty() ? 0 : out.getLast().end();
        int w = 0;
        for (int k = 0; k < perSegment.length; k++) {
            var segment = windowSegments.get(k);
            int counted = 0;
            while (w < timed.size() && counted < perSegment[k]) {
                var t = timed.get(w++);
                counted += t.tokens().size();
                if (t.text().isEmpty()) continue;
                double start = Math.min(Math.max(round2(offset + t.start()), Math.max(segment.start(), previousEnd)), segment.end());
                double end = Math.min(Math.max(round2(offset + t.end()), start), segment.end());
                out.add(new Transcript.Word(t.text().strip(), start, end));
                previousEnd = end;
            }
        }
    }

    private static double round2(double seconds) {
        return Math.round(seconds * 100) / 100.0;
    }

    /** The language whose token is likeliest after start-of-transcript on the first window. */
    private Languages.Language detectLanguage(LogMel.Spectrogram mel) {
        decoder.setAudio(encoder.encode(mel.window(0, window)));
        batch[0] = sp.startOfTranscript();
        float[] l = decoder.decode(batch, 1);
        int best = 0;
        for (int i = 1; i < sp.languageCount(); i++) if (l[sp.language(i)] > l[sp.language(best)]) best = i;
        return Languages.byIndex(best);
    }

    private static float softmaxAt(float[] x, int at) {
        float max = Float.NEGATIVE_INFINITY;
        for (float v : x) max = Math.max(max, v);
        double sum = 0;
        for (float v : x) sum += Math.exp(v - max);
        return (float) (Math.exp(x[at] - max) / sum);
    }

    /** Bytes of the text over bytes of its zlib compression: high for text that repeats itself. */
    static double compressionRatio(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0) return 0;
        var deflater = new Deflater();
        deflater.setInput(bytes);
        deflater.finish();
        var out = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        while (!deflater.finished()) out.write(buf, 0, deflater.deflate(buf));
        deflater.end();
        return bytes.length / (double) out.size();
    }
}
