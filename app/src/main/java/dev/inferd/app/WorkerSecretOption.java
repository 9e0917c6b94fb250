package dev.inferd.app;

import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The secret gateways and workers share: from a file (a Kubernetes Secret mounted as one) or the environment, never
 * the command line, which other users of the machine can read.
 */
final class WorkerSecretOption {
    static final String ENV = "INFERD_WORKER_SECRET";

    @Option(names = "--secret-file", paramLabel = "FILE",
            description = "a file holding the secret gateways and workers share (at least 16 characters); default: $" + ENV)
    Path secretFile;

    /** The secret, or throws with what to do. */
    String secret() {
        String secret;
        if (secretFile != null) {
            try {
                secret = Files.readString(secretFile, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read --secret-file " + secretFile + ": " + e.getMessage());
            }
        } else {
            secret = System.getenv(ENV);
        }
        if (secret == null || secret.length() < 16) {
            throw new IllegalArgumentException("the workers' shared secret is missing or shorter than 16 characters: "
                    + "give --secret-file FILE or set " + ENV + " (e.g. openssl rand -hex 32)");
        }
        return secret;
    }
}
