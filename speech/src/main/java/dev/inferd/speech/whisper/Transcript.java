package dev.inferd.speech.whisper;

import java.util.List;

/**
 * The result of a transcription: what verbose_json reports.
 *
 * @param language the language's code ({@code en})
 * @param duration seconds of audio
 * @param words    the words with their times when they were asked for, else empty
 */
public record Transcript(String language, double duration, String text, List<Segment> segments, List<Word> words) {

    public Transcript(String language, double duration, String text, List<Segment> segments) {
        this(language, duration, text, segments, List.of());
    }

    /**
     * A word and its times from the cross-attention alignment, within its segment.
     *
     * @param word  the word without its leading space, punctuation joined to it
     * @param start seconds from the start of the audio
     */
    public record Word(String word, double start, double end) {
    }

    /**
     * A segment between two timestamps.
     *
     * @param seek   the window's start, in 10 ms frames
     * @param start  seconds from the start of the audio
     * @param tokens the segment's tokens, timestamps included
     */
    public record Segment(int id, int seek, double start, double end, String text, List<Integer> tokens,
                          double temperature, double avgLogprob, double compressionRatio, double noSpeechProb) {
    }

    /** The language's English name, as verbose_json gives it. */
    public String languageName() {
        return Languages.byCode(language).map(Languages.Language::name).orElse(language);
    }
}
