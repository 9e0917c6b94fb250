package dev.inferd.app;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code inferd serve}'s start-up: the model loads beside the HTTP server, and a failure leaves nothing behind. */
class ServeCommandTest {
    @TempDir
    Path dir;

    @Test
    void aFileThatIsNotAModelExitsWithTheReasonAndFreesThePort() throws Exception {
        Path notAModel = Files.writeString(dir.resolve("notes.gguf"), "not a model");
        int port;
        try (var probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        var err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        int exit;
        System.setErr(new PrintStream(err, true, UTF_8));
        try {
            exit = new CommandLine(new ServeCommand())
                    .execute("--model", notAModel.toString(), "--port", Integer.toString(port), "--offline", "--threads", "1");
        } finally {
            System.setErr(saved);
        }

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString(UTF_8)).contains("cannot load " + notAModel);
        // the server that started beside the loading was stopped, not left to a shutdown hook
        try (var again = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void aDraftModelOfAnotherVocabularyIsRefusedWithTheReason() throws Exception {
        Path model = Fixtures.require("models/stories260K.gguf");
        var shape = new SyntheticShape("tiny", "llama", 64, 1, 4, 4, 128, 1024, 256, 10_000f, 1e-5f, true, false, null);
        Path draft = SyntheticModel.write(shape, WeightFormat.named("F32"), 1, dir.resolve("tiny.gguf"));
        int port;
        try (var probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        var err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        int exit;
        System.setErr(new PrintStream(err, true, UTF_8));
        try {
            exit = new CommandLine(new ServeCommand()).execute("--model", model.toString(), "--draft", draft.toString(),
                    "--port", Integer.toString(port), "--offline", "--threads", "1");
        } finally {
            System.setErr(saved);
        }
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString(UTF_8)).contains("the draft model tiny.gguf cannot draft for stories260K.gguf")
                .contains("their vocabularies differ (1024 tokens against 512)");
    }

    @Test
    void cloudRefusesADraftModelWithAReason() {
        var err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        int exit;
        System.setErr(new PrintStream(err, true, UTF_8));
        try {
            exit = new CommandLine(new CloudCommand()).execute("--draft", "qwen2.5-0.5b-instruct");
        } finally {
            System.setErr(saved);
        }
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(UTF_8)).contains("--draft is not supported under cloud").contains("inferd serve --model BIG --draft SMALL");
    }
}
