package dev.inferd.speech.whisper;

/**
 * Ids of Whisper's special tokens for a vocabulary of {@code nVocab}: they follow the ordinary
 * tokens, one per language between start-of-transcript and translate, then the timestamps from
 * {@link #timestampBegin} ({@code <|0.00|>}) in steps of 20 ms.
 */
public record SpecialTokens(int endOfText, int startOfTranscript, int languageCount, int translate, int transcribe,
                            int startOfLm, int startOfPrev, int noSpeech, int noTimestamps, int timestampBegin, int vocabSize) {

    public static SpecialTokens of(WhisperHParams h) {
        int languages = h.multilingual() ? h.languageCount() : 0;
        int eot = h.multilingual() ? 50257 : 50256;
        int sot = eot + 1;
        // the .en models keep the slots of the 99 first languages' tokens, unused
        int translate = sot + 1 + (h.multilingual() ? languages : 99);
        return new SpecialTokens(eot, sot, languages, translate, translate + 1, translate + 2, translate + 3,
                translate + 4, translate + 5, translate + 6, h.nVocab());
    }

    public int language(int languageIndex) {
        if (languageIndex < 0 || languageIndex >= languageCount) throw new IllegalArgumentException("no language " + languageIndex);
        return startOfTranscript + 1 + languageIndex;
    }

    public boolean isLanguage(int token) {
        return token > startOfTranscript && token <= startOfTranscript + languageCount;
    }

    public boolean isTimestamp(int token) {
        return token >= timestampBegin;
    }

    /** Seconds of timestamp token {@code token}. */
    public double seconds(int token) {
        return (token - timestampBegin) * 0.02;
    }

    public int timestampCount() {
        return vocabSize - timestampBegin;
    }
}
