package dev.inferd.speech.format;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inferd.speech.whisper.Transcript;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TranscriptFormatterTest {
    private static final Transcript BEACH = new Transcript("en", 8.47, "The beach was a popular spot on a hot summer day. People were swimming.", List.of(
            new Transcript.Segment(0, 0, 0.0, 3.32, " The beach was a popular spot on a hot summer day.", List.of(50364, 440, 50530),
                    0.0, -0.286, 1.236, 0.0099),
            new Transcript.Segment(1, 0, 3.32, 3728.0005, " People were swimming.", List.of(50530, 3432, 50764),
                    0.2, -0.5, 1.1, 0.02)));

    @Test
    void srtIsWhispersSubRipLayout() {
        assertThat(TranscriptFormatter.format(BEACH, ResponseFormat.SRT, TranscriptFormatter.Task.TRANSCRIBE).body()).isEqualTo("""
                1
                00:00:00,000 --> 00:00:03,320
                The beach was a popular spot on a hot summer day.

                2
                00:00:03,320 --> 01:02:08,001
                People were swimming.

                """);
    }

    @Test
    void vttStartsWithItsHeaderAndUsesDots() {
        var f = TranscriptFormatter.format(BEACH, ResponseFormat.VTT, TranscriptFormatter.Task.TRANSCRIBE);
        assertThat(f.contentType()).startsWith("text/vtt");
        assertThat(f.body()).isEqualTo("""
                WEBVTT

                00:00:00.000 --> 00:00:03.320
                The beach was a popular spot on a hot summer day.

                00:00:03.320 --> 01:02:08.001
                People were swimming.

                """);
    }

    @Test
    void textIsRawWithATrailingNewline() {
        var f = TranscriptFormatter.format(BEACH, ResponseFormat.TEXT, TranscriptFormatter.Task.TRANSCRIBE);
        assertThat(f.contentType()).isEqualTo("text/plain; charset=utf-8");
        assertThat(f.body()).isEqualTo(BEACH.text() + "\n");
    }

    @Test
    void jsonHasOnlyTheText() throws Exception {
        var f = TranscriptFormatter.format(BEACH, ResponseFormat.JSON, TranscriptFormatter.Task.TRANSCRIBE);
        assertThat(f.contentType()).isEqualTo("application/json");
        var node = new ObjectMapper().readTree(f.body());
        assertThat(node.size()).isEqualTo(1);
        assertThat(node.get("text").asText()).isEqualTo(BEACH.text());
    }

    @Test
    void verboseJsonHasEveryField() throws Exception {
        var body = TranscriptFormatter.format(BEACH, ResponseFormat.VERBOSE_JSON, TranscriptFormatter.Task.TRANSLATE).body();
        var node = new ObjectMapper().readTree(body);
        assertThat(node.get("task").asText()).isEqualTo("translate");
        assertThat(node.get("language").asText()).isEqualTo("english");
        assertThat(node.get("duration").asDouble()).isEqualTo(8.47);
        assertThat(node.get("text").asText()).doesNotStartWith(" ");
        var seg = node.get("segments").get(0);
        assertThat(seg.fieldNames()).toIterable().containsExactly("id", "seek", "start", "end", "text", "tokens", "temperature",
                "avg_logprob", "compression_ratio", "no_speech_prob");
        assertThat(seg.get("id").isInt()).isTrue();
        assertThat(seg.get("seek").isInt()).isTrue();
        assertThat(seg.get("tokens").get(0).isInt()).isTrue();
        assertThat(seg.get("start").isDouble()).isTrue();
        assertThat(seg.get("temperature").isDouble()).isTrue();
        assertThat(seg.get("text").asText()).startsWith(" The");
    }

    @Test
    void wordsAreListedWhenAskedForAndSegmentsOnlyWithTheirGranularity() throws Exception {
        var withWords = new Transcript(BEACH.language(), BEACH.duration(), BEACH.text(), BEACH.segments(),
                List.of(new Transcript.Word("The", 0.0, 0.24), new Transcript.Word("beach", 0.24, 0.6)));
        var mapper = new ObjectMapper();
        var both = mapper.readTree(TranscriptFormatter.format(withWords, ResponseFormat.VERBOSE_JSON, TranscriptFormatter.Task.TRANSCRIBE,
                EnumSet.of(TranscriptFormatter.Granularity.WORD, TranscriptFormatter.Granularity.SEGMENT)).body());
        assertThat(both.get("segments")).hasSize(2);
        var word = both.get("words").get(1);
        assertThat(word.fieldNames()).toIterable().containsExactly("word", "start", "end");
        assertThat(word.get("word").asText()).isEqualTo("beach");
        assertThat(word.get("start").asDouble()).isEqualTo(0.24);
        var wordsOnly = mapper.readTree(TranscriptFormatter.format(withWords, ResponseFormat.VERBOSE_JSON, TranscriptFormatter.Task.TRANSCRIBE,
                EnumSet.of(TranscriptFormatter.Granularity.WORD)).body());
        assertThat(wordsOnly.has("segments")).isFalse();
        assertThat(wordsOnly.get("words")).hasSize(2);
        assertThat(wordsOnly.get("duration").asDouble()).isEqualTo(8.47);
        var segmentsOnly = mapper.readTree(TranscriptFormatter.format(withWords, ResponseFormat.VERBOSE_JSON, TranscriptFormatter.Task.TRANSCRIBE).body());
        assertThat(segmentsOnly.has("words")).isFalse();
    }

    @Test
    void formatsAreParsedByTheirWireNames() {
        assertThat(ResponseFormat.parse("verbose_json")).contains(ResponseFormat.VERBOSE_JSON);
        assertThat(ResponseFormat.parse("SRT")).contains(ResponseFormat.SRT);
        assertThat(ResponseFormat.parse("diarized_json")).isEmpty();
        assertThat(ResponseFormat.known()).isEqualTo("json, text, srt, verbose_json, vtt");
    }

    @Test
    void timestampsAreNeverNegative() {
        assertThat(TranscriptFormatter.timestamp(-0.01, ',')).isEqualTo("00:00:00,000");
        assertThat(TranscriptFormatter.timestamp(59.9996, '.')).isEqualTo("00:01:00.000");
    }
}
