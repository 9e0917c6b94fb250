package dev.inferd.engine;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The shared fixtures ({@code ../shared/fixtures} beside the project, or the {@code inferd.fixtures}
 * system property), and what else tests need from outside the project. Without the fixture folder, tests
 * that need it are skipped. Anything else a test needs and cannot have (a fixture missing from the folder,
 * a set-up script that fails, a library that does not load) skips it on a developer's machine but fails it
 * under CI ({@code CI=true}): a CI run must not pass on tests it did not run.
 */
public final class Fixtures {
    private static final int MESSAGE_LINES = 20;

    private Fixtures() {
    }

    public static Path dir() {
        String prop = System.getProperty("inferd.fixtures");
        return Path.of(prop != null ? prop : "../shared/fixtures").toAbsolutePath().normalize();
    }

    /** True when the tests run under CI ({@code CI=true}). */
    public static boolean underCi() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /**
     * Returns when {@code available}; otherwise skips the calling test, or under CI fails it, saying {@code why}.
     */
    public static void prerequisite(boolean available, String why) {
        prerequisite(available, why, underCi());
    }

    static void prerequisite(boolean available, String why, boolean ci) {
        if (available) return;
        if (ci) Assertions.fail("CI=true and a prerequisite is missing: " + why);
        Assumptions.abort(why);
    }

    /**
     * The fixture at {@code relative}. Skips the calling test when the fixture folder is absent; a fixture
     * missing from a folder that is there is a missing prerequisite ({@link #prerequisite}).
     */
    public static Path require(String relative) {
        return require(dir(), relative, underCi());
    }

    static Path require(Path dir, String relative, boolean ci) {
        Path p = dir.resolve(relative);
        Assumptions.assumeTrue(Files.isDirectory(dir), "the fixture folder " + dir + " is absent");
        prerequisite(Files.exists(p), "fixture " + p + " is absent", ci);
        return p;
    }

    /**
     * Runs the project's set-up script {@code scripts/<script>} (which installs or fetches what a test needs) and
     * returns the lines it printed. When the script fails, the calling test is skipped, or under CI fails, with
     * {@code what} and the last lines the script wrote to its standard error.
     */
    public static List<String> fromSetupScript(String script, String what) throws IOException, InterruptedException {
        return fromSetupScript(Path.of("..", "scripts", script).toAbsolutePath().normalize(), what, underCi());
    }

    static List<String> fromSetupScript(Path file, String what, boolean ci) throws IOException, InterruptedException {
        String script = file.getFileName().toString();
        prerequisite(Files.exists(file), "no " + file, ci);
        Path errors = Files.createTempFile("inferd-setup-", ".log");
        try {
            Process p = new ProcessBuilder("bash", file.toString()).redirectError(errors.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            boolean done = p.waitFor(10, TimeUnit.MINUTES);
            if (!done) p.destroyForcibly();
            List<String> messages = Files.readAllLines(errors, StandardCharsets.UTF_8);
            messages.forEach(System.err::println);
            String status = done ? "exit status " + p.exitValue() : "still running after 10 minutes";
            prerequisite(done && p.exitValue() == 0, what + " (scripts/" + script + " could not provide it: " + status
                    + (messages.isEmpty() ? ")" : "; it said:\n" + String.join("\n",
                    messages.subList(Math.max(0, messages.size() - MESSAGE_LINES), messages.size())) + ")"), ci);
            return out.lines().filter(l -> !l.isBlank()).toList();
        } finally {
            Files.deleteIfExists(errors);
        }
    }

    public static Path storiesModel() {
        return require("models/stories260K.gguf");
    }
}
