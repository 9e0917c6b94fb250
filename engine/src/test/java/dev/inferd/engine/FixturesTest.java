package dev.inferd.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What cannot be had skips a test on a developer's machine and fails it under CI; an absent fixture folder always skips. */
class FixturesTest {

    @TempDir
    Path tmp;

    @Test
    void aFailingSetUpScriptSkipsOnADevelopersMachineAndFailsUnderCiWithItsMessage() throws Exception {
        Path script = tmp.resolve("test-something.sh");
        Files.writeString(script, "echo 'fetching the thing' >&2\necho 'no network here' >&2\nexit 3\n");

        assertThatThrownBy(() -> Fixtures.fromSetupScript(script, "the thing could not be fetched", false))
                .isInstanceOf(TestAbortedException.class).hasMessageContaining("the thing could not be fetched");
        assertThatThrownBy(() -> Fixtures.fromSetupScript(script, "the thing could not be fetched", true))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageContaining("the thing could not be fetched")
                .hasMessageContaining("exit status 3")
                .hasMessageContaining("no network here");
    }

    @Test
    void aSucceedingSetUpScriptGivesItsLines() throws Exception {
        Path script = tmp.resolve("test-ok.sh");
        Files.writeString(script, "echo /some/path\necho\necho /other/path\n");
        assertThat(Fixtures.fromSetupScript(script, "paths", true)).containsExactly("/some/path", "/other/path");
    }

    @Test
    void anAbsentFixtureFolderSkipsEvenUnderCiButAFixtureMissingFromItFailsThere() throws Exception {
        Path absent = tmp.resolve("no-fixtures");
        assertThatThrownBy(() -> Fixtures.require(absent, "models/x.gguf", true)).isInstanceOf(TestAbortedException.class);

        Path folder = Files.createDirectories(tmp.resolve("fixtures"));
        assertThatThrownBy(() -> Fixtures.require(folder, "models/x.gguf", true))
                .isInstanceOf(AssertionFailedError.class).hasMessageContaining("x.gguf");
        assertThatThrownBy(() -> Fixtures.require(folder, "models/x.gguf", false)).isInstanceOf(TestAbortedException.class);

        Files.createDirectories(folder.resolve("models"));
        Files.writeString(folder.resolve("models/x.gguf"), "");
        assertThat(Fixtures.require(folder, "models/x.gguf", true)).exists();
    }
}
