package dev.inferd.speech.whisper;

import java.util.List;
import java.util.Locale;

/** The hyperparameters of the published Whisper sizes (multilingual), for synthetic models. */
public record WhisperShape(String name, int nVocab, int nState, int nHead, int nAudioLayer, int nTextLayer, int nMels) {

    public static final WhisperShape TINY = new WhisperShape("whisper-tiny", 51865, 384, 6, 4, 4, 80);
    public static final WhisperShape BASE = new WhisperShape("whisper-base", 51865, 512, 8, 6, 6, 80);
    public static final WhisperShape SMALL = new WhisperShape("whisper-small", 51865, 768, 12, 12, 12, 80);
    public static final WhisperShape MEDIUM = new WhisperShape("whisper-medium", 51865, 1024, 16, 24, 24, 80);
    public static final WhisperShape LARGE_V3 = new WhisperShape("whisper-large-v3", 51866, 1280, 20, 32, 32, 128);
    public static final WhisperShape LARGE_V3_TURBO = new WhisperShape("whisper-large-v3-turbo", 51866, 1280, 20, 32, 4, 128);
    public static final List<WhisperShape> KNOWN = List.of(TINY, BASE, SMALL, MEDIUM, LARGE_V3, LARGE_V3_TURBO);

    public static final int AUDIO_CTX = 1500;
    public static final int TEXT_CTX = 448;

    public WhisperHParams hparams(int ftype) {
        return new WhisperHParams(nVocab, AUDIO_CTX, nState, nHead, nAudioLayer, TEXT_CTX, nState, nHead, nTextLayer, nMels, ftype);
    }

    public static WhisperShape named(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return KNOWN.stream().filter(s -> s.name.equals(n) || s.name.equals("whisper-" + n)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown Whisper shape '" + name + "'; known: "
                        + KNOWN.stream().map(WhisperShape::name).toList()));
    }
}
