package dev.inferd.app;

import dev.inferd.engine.Fixtures;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The files of docs/deploy.md are valid for the tools that read them: the systemd units for
 * {@code systemd-analyze verify}, the Kubernetes manifests for Kubernetes' schemas (the npm package
 * kubernetes-models, installed by scripts/test-kubernetes-schemas.sh), and both run the commands as the docs say.
 */
class DeployFilesTest {

    private static final Path DEPLOY = Path.of("..", "deploy").toAbsolutePath().normalize();
    private static final Path SCRIPTS = Path.of("..", "scripts").toAbsolutePath().normalize();

    private record Run(int status, String out, String err) {
    }

    @Test
    void theSystemdUnitsVerify() throws Exception {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        Fixtures.prerequisite(Files.isExecutable(analyze), "systemd-analyze is not installed (Debian's systemd package)");
        Path dir = Files.createTempDirectory("inferd-units");
        // verify wants the ExecStart binary to exist: a stand-in for the JDK's java, where the docs unpack it
        Path java = Files.writeString(dir.resolve("java"), "#!/bin/sh\n");
        java.toFile().setExecutable(true);
        List<String> units = new ArrayList<>();
        for (String name : List.of("inferd-gateway.service", "inferd-worker.service")) {
            String unit = Files.readString(DEPLOY.resolve("systemd").resolve(name));
            assertThat(unit).contains("/opt/inferd/jdk/bin/java @/opt/inferd/jvm.options").contains("-jar /opt/inferd/inferd.jar");
            Files.writeString(dir.resolve(name), unit.replace("/opt/inferd/jdk/bin/java", java.toString()));
            units.add(dir.resolve(name).toString());
        }
        assertThat(Files.readString(DEPLOY.resolve("systemd/inferd-gateway.service"))).contains(" gateway --host 0.0.0.0 --port 8000 --database ${INFERD_DATABASE_URL}");
        assertThat(Files.readString(DEPLOY.resolve("systemd/inferd-worker.service"))).contains(" worker --host 0.0.0.0 --port 8001 --database ${INFERD_DATABASE_URL} --advertise ${INFERD_WORKER_ADDRESS}");
        List<String> command = new ArrayList<>(List.of(analyze.toString(), "verify"));
        command.addAll(units);
        Run run = run(command);
        assertThat(run.err()).as("systemd-analyze verify").isBlank();
        assertThat(run.status()).as(run.err()).isZero();
    }

    @Test
    void theKubernetesManifestsValidateAgainstKubernetesSchemas() throws Exception {
        List<String> setup = Fixtures.fromSetupScript("test-kubernetes-schemas.sh", "a Kubernetes schema validator");
        List<String> command = new ArrayList<>(List.of(setup.get(0), SCRIPTS.resolve("validate-kubernetes.mjs").toString(), setup.get(1)));
        try (var files = Files.list(DEPLOY.resolve("kubernetes"))) {
            files.filter(f -> f.toString().endsWith(".yaml")).sorted().forEach(f -> command.add(f.toString()));
        }
        Run run = run(command);
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out().lines().filter(l -> l.startsWith("ok "))).hasSize(4)
                .anyMatch(l -> l.endsWith("Deployment inferd-gateway")).anyMatch(l -> l.endsWith("Deployment inferd-worker"))
                .anyMatch(l -> l.endsWith("Service inferd")).anyMatch(l -> l.endsWith("Secret inferd"));
        // The schema leaves probe paths and unknown fields free: what the docs promise is checked here.
        for (String name : List.of("gateway.yaml", "worker.yaml")) {
            String manifest = Files.readString(DEPLOY.resolve("kubernetes").resolve(name));
            assertThat(manifest).as(name).contains("livenessProbe:\n            httpGet: {path: /health, port: http}")
                    .contains("readinessProbe:\n            httpGet: {path: /ready, port: http}")
                    .contains("secretKeyRef: {name: inferd, key: database-url}");
        }
    }

    @Test
    void aManifestThatBreaksTheSchemaIsRefused() throws Exception {
        List<String> setup = Fixtures.fromSetupScript("test-kubernetes-schemas.sh", "a Kubernetes schema validator");
        Path bad = Files.createTempFile("inferd-bad", ".yaml");
        Files.writeString(bad, Files.readString(DEPLOY.resolve("kubernetes/gateway.yaml"))
                .replace("containerPort: 8000", "containerPort: eight-thousand"));
        Run run = run(List.of(setup.get(0), SCRIPTS.resolve("validate-kubernetes.mjs").toString(), setup.get(1), bad.toString()));
        assertThat(run.status()).isNotZero();
        assertThat(run.err()).contains("containerPort must be integer");
    }

    private static Run run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).start();
        var err = new StringBuilder();
        Thread errors = Thread.ofVirtual().start(() -> {
            try {
                err.append(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // the process ended
            }
        });
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        errors.join();
        return new Run(p.exitValue(), out, err.toString());
    }
}
