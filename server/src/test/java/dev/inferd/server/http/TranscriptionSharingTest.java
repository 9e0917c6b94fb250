package dev.inferd.server.http;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.speech.audio.AudioDecoder;
import dev.inferd.speech.whisper.SyntheticWhisper;
import dev.inferd.speech.whisper.WhisperModel;
import dev.inferd.speech.whisper.WhisperShape;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A long transcription beside a real chat model (stories260K) in one server: chat streams are answered
 * while the transcription goes on, and a transcription whose client goes away stops decoding. The
 * transcription's progress is read from the model's count of decoder steps. Slow: each test uploads
 * five minutes of audio and waits on a random model's decoding.
 */
@Tag("slow")
class TranscriptionSharingTest {
    static final String SPEECH = "speech-micro";
    static final String CHAT = "stories-260k";

    @TempDir
    static Path tmp;
    static WhisperModel whisper;
    static InferdServer server;
    /** Five minutes of speech (jfk.wav over and over, 9.6 MB): ten windows, far longer than any test here waits. */
    static byte[] longUpload;

    @BeforeAll
    static void start() throws IOException {
        var shape = new WhisperShape("whisper-micro", 51865, 64, 2, 1, 1, 80);
        whisper = WhisperModel.open(new SyntheticWhisper.Spec(shape, GGMLType.F16, 3, 1.0f).write(tmp.resolve("micro.bin")));
        var chat = new ModelRegistry();
        chat.ready(CHAT, LocalTextGenerator.open(Fixtures.storiesModel(), new LocalTextGenerator.Options(CHAT, null, 0)));
        var speech = new SpeechModels();
        speech.ready(SPEECH, whisper);
        server = InferdServer.start("127.0.0.1", 0, chat, speech, ServerOptions.defaults());
        float[] jfk = new AudioDecoder().decode(Files.readAllBytes(Fixtures.require("audio/jfk.wav"))).samples();
        longUpload = multipart(wav(jfk, 300 * 16_000));
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (whisper != null) whisper.close();
    }

    @Test
    void chatStreamsAreAnsweredWhileALongTranscriptionGoesOn() throws Exception {
        try (Socket transcription = startTranscription()) {
            long before = whisper.decoderSteps();
            for (int i = 0; i < 3; i++) {
                long stepsBefore = whisper.decoderSteps();
                String stream = chatStream();
                assertThat(stream).contains("data: [DONE]");
                assertThat(stream.split("\"content\":\"", -1).length - 1).as("content chunks").isGreaterThanOrEqualTo(10);
                awaitSteps(stepsBefore + 1);
            }
            assertThat(whisper.decoderSteps()).as("the transcription went on between the streams").isGreaterThan(before);
            assertThat(transcription.isClosed()).isFalse();
        }
    }

    @Test
    void aTranscriptionWhoseClientGoesAwayStopsDecoding() throws Exception {
        assumeTrue(dev.inferd.server.linux.LinuxTcpTable.SYSTEM.isAvailable(), "needs Linux's /proc/net/tcp");
        try (Socket ignored = startTranscription()) {
            awaitSteps(whisper.decoderSteps() + 5);
        }
        // the watch looks every 100 ms and the decoder polls between tokens: it stops within a few steps
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        long last = -1;
        while (System.nanoTime() < deadline) {
            long now = whisper.decoderSteps();
            if (now == last) break;
            last = now;
            Thread.sleep(1000);
        }
        long stopped = whisper.decoderSteps();
        Thread.sleep(1500);
        assertThat(whisper.decoderSteps()).as("no decoding after the client left").isEqualTo(stopped);
        // the model's turn is free again: a short transcription is answered
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(120_000);
            float[] second = new float[16_000];
            socket.getOutputStream().write(request(multipart(wav(second, second.length))));
            var in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            assertThat(in.readLine()).startsWith("HTTP/1.1 200");
        }
    }

    private static Socket startTranscription() throws Exception {
        var socket = new Socket("127.0.0.1", server.port());
        socket.getOutputStream().write(request(longUpload));
        socket.getOutputStream().flush();
        awaitSteps(whisper.decoderSteps() + 1);
        return socket;
    }

    private static void awaitSteps(long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (whisper.decoderSteps() < atLeast && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(whisper.decoderSteps()).as("decoder steps").isGreaterThanOrEqualTo(atLeast);
    }

    private static String chatStream() throws IOException {
        String body = "{\"model\":\"" + CHAT + "\",\"stream\":true,\"max_tokens\":24,\"temperature\":0,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Once upon a time\"}]}";
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(60_000);
            socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length
                    + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
            var in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            var out = new StringBuilder();
            String line;
            while ((line = in.readLine()) != null) {
                out.append(line).append('\n');
                if (line.equals("data: [DONE]")) break;
            }
            return out.toString();
        }
    }

    private static byte[] request(byte[] multipart) {
        var out = new ByteArrayOutputStream();
        out.writeBytes(("POST /v1/audio/transcriptions HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: " + MultipartForm.CONTENT_TYPE + "\r\nContent-Length: " + multipart.length + "\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        out.writeBytes(multipart);
        return out.toByteArray();
    }

    private static byte[] multipart(byte[] file) {
        return MultipartForm.body(Map.of("model", SPEECH, "language", "en"), "long.wav", "audio/wav", file);
    }

    /** 16-bit mono 16 kHz WAV of {@code length} samples, {@code samples} repeated. */
    private static byte[] wav(float[] samples, int length) {
        var b = ByteBuffer.allocate(44 + 2 * length).order(ByteOrder.LITTLE_ENDIAN);
        b.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + 2 * length).put("WAVEfmt ".getBytes(StandardCharsets.US_ASCII))
                .putInt(16).putShort((short) 1).putShort((short) 1).putInt(16_000).putInt(32_000).putShort((short) 2).putShort((short) 16)
                .put("data".getBytes(StandardCharsets.US_ASCII)).putInt(2 * length);
        for (int i = 0; i < length; i++) {
            float v = samples.length == 0 ? 0 : samples[i % samples.length];
            b.putShort((short) Math.max(-32768, Math.min(32767, Math.round(v * 32767))));
        }
        return b.array();
    }
}
