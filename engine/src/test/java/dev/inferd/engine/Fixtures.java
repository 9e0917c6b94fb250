package dev.inferd.engine;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The shared fixtures ({@code ../shared/fixtures} beside the project, or the {@code inferd.fixtures}
 * system property). Tests that need one are skipped, not failed, when it is absent.
 */
public final class Fixtures {
    private Fixtures() {
    }

    public static Path dir() {
        String prop = System.getProperty("inferd.fixtures");
        return Path.of(prop != null ? prop : "../shared/fixtures").toAbsolutePath().normalize();
    }

    /** The fixture at {@code relative}, or skips the calling test when it is not there. */
    public static Path require(String relative) {
        Path p = dir().resolve(relative);
        Assumptions.assumeTrue(Files.exists(p), "fixture " + p + " is absent");
        return p;
    }

    /**
     * Runs the project's set-up script {@code scripts/<script>} (which installs or fetches what a test needs) and
     * returns the lines it printed. When the script fails, the calling test is skipped, naming {@code what} is
     * missing; under {@code CI=true} it fails instead, since a CI machine must provide everything.
     */
    public static List<String> fromSetupScript(String script, String what) throws IOException, InterruptedException {
        Path file = Path.of("..", "scripts", script).toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.exists(file), "no " + file);
        Process p = new ProcessBuilder("bash", file.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean done = p.waitFor(10, TimeUnit.MINUTES);
        if (!(done && p.exitValue() == 0)) {
            String why = what + " (scripts/" + script + " could not provide it)";
            if ("true".equals(System.getenv("CI"))) throw new AssertionError("CI=true needs " + why);
            Assumptions.abort("skipped: " + why);
        }
        return out.lines().filter(l -> !l.isBlank()).toList();
    }

    public static Path storiesModel() {
        return require("models/stories260K.gguf");
    }
}
