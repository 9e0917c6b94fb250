package dev.inferd.speech.whisper;

/**
 * The hyperparameters at the head of a whisper.cpp model file, in the file's order. {@code ftype}
 * is ggml's file type (0 F32, 1 F16, 2 Q4_0, 3 Q4_1, 7 Q8_0, 8 Q5_0, 9 Q5_1, 10-14 Q2_K-Q6_K)
 * without the quantization version that quantized files add in thousands.
 */
public record WhisperHParams(int nVocab, int nAudioCtx, int nAudioState, int nAudioHead, int nAudioLayer,
                             int nTextCtx, int nTextState, int nTextHead, int nTextLayer, int nMels, int ftype) {

    /** Multilingual models have a token per language and the translate task; the .en models have neither. */
    public boolean multilingual() {
        return nVocab >= 51865;
    }

    /** 99 languages up to large-v2, 100 from large-v3 (Cantonese). */
    public int languageCount() {
        return nVocab - 51765 - (multilingual() ? 1 : 0);
    }

    /** The size's usual name, for logs. */
    public String sizeName() {
        String base = switch (nAudioLayer) {
            case 4 -> "tiny";
            case 6 -> "base";
            case 12 -> "small";
            case 24 -> "medium";
            case 32 -> nTextLayer == 4 ? "large-v3-turbo" : nMels == 128 ? "large-v3" : "large";
            default -> nAudioLayer + "-layer";
        };
        return multilingual() ? base : base + ".en";
    }

    void validate() {
        int[] positive = {nVocab, nAudioCtx, nAudioState, nAudioHead, nAudioLayer, nTextCtx, nTextState, nTextHead, nTextLayer, nMels};
        for (int v : positive) {
            if (v <= 0 || v > 1 << 20) throw new WhisperFormatException("implausible hyperparameters " + this);
        }
        if (nAudioState % nAudioHead != 0 || nTextState % nTextHead != 0) {
            throw new WhisperFormatException("the width does not divide into the heads: " + this);
        }
        if (nVocab < 51864) throw new WhisperFormatException("a Whisper vocabulary has at least 51864 tokens, this one " + nVocab);
    }
}
