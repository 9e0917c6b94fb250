package dev.inferd.speech.whisper;

/**
 * How to transcribe.
 *
 * @param language     ISO-639-1 code, or null to detect it from the first 30 s
 * @param translate    Whisper's translate task (into English) instead of transcribe
 * @param prompt       text the first window is conditioned on, as if it came before; may be null
 * @param temperature  0 for greedy decoding; above 0, sampling at that temperature
 * @param fallback     on a failed window (compression ratio over 2.4, average log-probability under -1), retry at
 *                     temperatures rising by 0.2 up to 1, as Whisper does when the temperature is 0 or unset
 * @param conditionOnPreviousText each window is conditioned on the text of those before it
 * @param suppressBlank no blank or end of text as a window's first token
 * @param seed         the random generator's seed for sampling
 * @param wordTimestamps each word's times, from the cross-attention alignment
 */
public record TranscriptionOptions(String language, boolean translate, String prompt, float temperature, boolean fallback,
                                   boolean conditionOnPreviousText, boolean suppressBlank, long seed, boolean wordTimestamps) {

    public static final float COMPRESSION_RATIO_THRESHOLD = 2.4f;
    public static final float LOGPROB_THRESHOLD = -1f;
    public static final float NO_SPEECH_THRESHOLD = 0.6f;
    public static final float TEMPERATURE_STEP = 0.2f;
    /** The first timestamp is at most 1 s into a window. */
    public static final float MAX_INITIAL_TIMESTAMP = 1f;

    /** Whisper's defaults: detect the language, transcribe, greedy with fallback. */
    public static TranscriptionOptions defaults() {
        return new TranscriptionOptions(null, false, null, 0, true, true, true, 0, false);
    }

    public TranscriptionOptions withLanguage(String language) {
        return new TranscriptionOptions(language, translate, prompt, temperature, fallback, conditionOnPreviousText, suppressBlank, seed, wordTimestamps);
    }

    public TranscriptionOptions withFallback(boolean fallback) {
        return new TranscriptionOptions(language, translate, prompt, temperature, fallback, conditionOnPreviousText, suppressBlank, seed, wordTimestamps);
    }

    public TranscriptionOptions withConditionOnPreviousText(boolean condition) {
        return new TranscriptionOptions(language, translate, prompt, temperature, fallback, condition, suppressBlank, seed, wordTimestamps);
    }

    public TranscriptionOptions withTranslate(boolean translate) {
        return new TranscriptionOptions(language, translate, prompt, temperature, fallback, conditionOnPreviousText, suppressBlank, seed, wordTimestamps);
    }

    public TranscriptionOptions withPrompt(String prompt) {
        return new TranscriptionOptions(language, translate, prompt, temperature, fallback, conditionOnPreviousText, suppressBlank, seed, wordTimestamps);
    }

    public TranscriptionOptions withTemperature(float temperature) {
        return new TranscriptionOptions(language, translate, prompt, temperature, fallback, conditionOnPreviousText, suppressBlank, seed, wordTimestamps);
    }

    public TranscriptionOptions withWordTimestamps(boolean words) {
        return new TranscriptionOptions(language, translate, prompt, temperature, fallback, conditionOnPreviousText, suppressBlank, seed, words);
    }
}
