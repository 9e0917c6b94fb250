package dev.inferd.engine;

import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;

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

    public static Path storiesModel() {
        return require("models/stories260K.gguf");
    }
}
