package dev.inferd.speech.format;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.inferd.speech.whisper.Transcript;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * Writes a {@link Transcript} as OpenAI's audio endpoints do: {@code json} ({@code {"text"}}),
 * {@code text} (the transcript and a newline), {@code srt} and {@code vtt} (Whisper's subtitle
 * writers' layout, hours always present, milliseconds rounded) and {@code verbose_json} (task,
 * language by its English name, duration, text, segments with all ten fields, words when asked for).
 */
public final class TranscriptFormatter {
    private static final JsonFactory JSON = new JsonFactory();

    /** Whisper's two tasks, named as verbose_json names them. */
    public enum Task {
        TRANSCRIBE("transcribe"), TRANSLATE("translate");

        private final String wireName;

        Task(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() { return wireName; }
    }

    /** What verbose_json times: {@code timestamp_granularities[]}. */
    public enum Granularity { SEGMENT, WORD }

    private TranscriptFormatter() {
    }

    public static FormattedTranscript format(Transcript t, ResponseFormat format, Task task) {
        return format(t, format, task, EnumSet.of(Granularity.SEGMENT));
    }

    /** verbose_json has {@code segments} with the segment granularity and {@code words} with the word granularity. */
    public static FormattedTranscript format(Transcript t, ResponseFormat format, Task task, Set<Granularity> granularities) {
        String body = switch (format) {
            case JSON -> json(t);
            case TEXT -> t.text() + "\n";
            case SRT -> srt(t);
            case VTT -> vtt(t);
            case VERBOSE_JSON -> verboseJson(t, task, granularities);
        };
        return new FormattedTranscript(format.contentType(), body);
    }

    static String srt(Transcript t) {
        var out = new StringBuilder();
        int n = 1;
        for (var s : t.segments()) {
            out.append(n++).append('\n')
                    .append(timestamp(s.start(), ',')).append(" --> ").append(timestamp(s.end(), ',')).append('\n')
                    .append(s.text().strip()).append("\n\n");
        }
        return out.toString();
    }

    static String vtt(Transcript t) {
        var out = new StringBuilder("WEBVTT\n\n");
        for (var s : t.segments()) {
            out.append(timestamp(s.start(), '.')).append(" --> ").append(timestamp(s.end(), '.')).append('\n')
                    .append(s.text().strip()).append("\n\n");
        }
        return out.toString();
    }

    /** {@code HH:MM:SS,mmm} (or with a dot), milliseconds rounded, never negative. */
    static String timestamp(double seconds, char separator) {
        long ms = Math.max(0, Math.round(seconds * 1000));
        return String.format(Locale.ROOT, "%02d:%02d:%02d%c%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, separator, ms % 1000);
    }

    private static String json(Transcript t) {
        return write(g -> {
            g.writeStartObject();
            g.writeStringField("text", t.text());
            g.writeEndObject();
        });
    }

    private static String verboseJson(Transcript t, Task task, Set<Granularity> granularities) {
        return write(g -> {
            g.writeStartObject();
            g.writeStringField("task", task.wireName());
            g.writeStringField("language", t.languageName());
            g.writeNumberField("duration", t.duration());
            g.writeStringField("text", t.text());
            if (granularities.contains(Granularity.WORD)) {
                g.writeArrayFieldStart("words");
                for (var w : t.words()) {
                    g.writeStartObject();
                    g.writeStringField("word", w.word());
                    g.writeNumberField("start", w.start());
                    g.writeNumberField("end", w.end());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            if (!granularities.contains(Granularity.SEGMENT)) {
                g.writeEndObject();
                return;
            }
            g.writeArrayFieldStart("segments");
            for (var s : t.segments()) {
                g.writeStartObject();
                g.writeNumberField("id", s.id());
                g.writeNumberField("seek", s.seek());
                g.writeNumberField("start", s.start());
                g.writeNumberField("end", s.end());
                g.writeStringField("text", s.text());
                g.writeArrayFieldStart("tokens");
                for (int id : s.tokens()) g.writeNumber(id);
                g.writeEndArray();
                g.writeNumberField("temperature", s.temperature());
                g.writeNumberField("avg_logprob", finite(s.avgLogprob()));
                g.writeNumberField("compression_ratio", finite(s.compressionRatio()));
                g.writeNumberField("no_speech_prob", finite(s.noSpeechProb()));
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    private static double finite(double v) {
        return Double.isFinite(v) ? v : v > 0 ? Double.MAX_VALUE : -Double.MAX_VALUE;
    }

    private interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    private static String write(Body body) {
        var out = new StringWriter();
        try (var g = JSON.createGenerator(out)) {
            body.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }
}
