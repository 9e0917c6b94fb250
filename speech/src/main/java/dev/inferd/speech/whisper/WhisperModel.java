package dev.inferd.speech.whisper;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A Whisper model loaded from a whisper.cpp file: weights over the mapping, the tokenizer and the
 * log-mel front end with the file's own filter bank. Shared by all requests; each transcription
 * takes a {@link Transcriber} of its own (the buffers of one encoder and one decoder).
 */
public final class WhisperModel implements AutoCloseable {
    private final WhisperModelFile file;
    private final Layers layers;
    private final WhisperTokenizer tokenizer;
    private final LogMel logMel;
    private final java.util.concurrent.atomic.LongAdder decoderSteps = new java.util.concurrent.atomic.LongAdder();

    private WhisperModel(WhisperModelFile file) {
        this.file = file;
        var h = file.hparams();
        if (file.melFilterLength() != MelFilters.BINS) {
            throw new WhisperFormatException(file.path() + ": mel filters of " + file.melFilterLength() + " bins, expected " + MelFilters.BINS);
        }
        this.layers = Layers.load(file);
        this.tokenizer = new WhisperTokenizer(file.words(), SpecialTokens.of(h));
        this.logMel = new LogMel(h.nMels(), file.melFilters());
    }

    public static WhisperModel open(Path path) throws IOException {
        var file = WhisperModelFile.open(path);
        try {
            return new WhisperModel(file);
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
    }

    public WhisperHParams hparams() { return file.hparams(); }

    public WhisperTokenizer tokenizer() { return tokenizer; }

    public LogMel logMel() { return logMel; }

    Layers layers() { return layers; }

    /** Tokens decoded one at a time by all transcriptions so far: shows that work goes on, or has stopped. */
    public long decoderSteps() { return decoderSteps.sum(); }

    void countDecoderStep() { decoderSteps.increment(); }

    public Transcriber newTranscriber() {
        return new Transcriber(this);
    }

    @Override
    public void close() {
        file.close();
    }
}
