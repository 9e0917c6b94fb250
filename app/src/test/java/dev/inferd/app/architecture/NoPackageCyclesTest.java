package dev.inferd.app.architecture;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** No two packages of the project's main code depend on each other, directly or around a circle. */
class NoPackageCyclesTest {

    @Test
    void theMainCodeOfEveryModuleHasNoPackageCycle() {
        Path root = Path.of("").toAbsolutePath().getParent();
        assertThat(root.resolve("engine/src/main/java")).as("the project's root").isDirectory();
        var deps = PackageDependencies.ofProject(root);
        assertThat(deps.packages()).as("packages found").contains("dev.inferd.engine.generate",
                "dev.inferd.server.http", "dev.inferd.app");

        String cycles = deps.cycles().stream().map(deps::describe).collect(Collectors.joining("\nand"));
        assertThat(cycles).as("package cycles").isEmpty();
    }

    @Test
    void aCycleThroughAFullyQualifiedNameIsFound() {
        var deps = new PackageDependencies();
        deps.add("package dev.inferd.a;\nimport dev.inferd.b.B;\nclass A { B b; }");
        deps.add("package dev.inferd.b;\nclass B { dev.inferd.c.C c; }");
        deps.add("package dev.inferd.c;\nimport static dev.inferd.a.A.VALUE;\nclass C { }");
        deps.add("package dev.inferd.d;\nimport dev.inferd.a.*;\nclass D { }");

        assertThat(deps.cycles()).containsExactly(Set.of("dev.inferd.a", "dev.inferd.b", "dev.inferd.c"));
    }

    @Test
    void commentsAndStringsAreNotDependencies() {
        var deps = new PackageDependencies();
        deps.add("package dev.inferd.a;\n/** See {@link dev.inferd.b.B}. */\nclass A { String s = \"dev.inferd.b.B\"; // dev.inferd.b.B\n}");
        deps.add("package dev.inferd.b;\nimport dev.inferd.a.A;\nclass B { }");

        assertThat(deps.cycles()).isEmpty();
    }

    @Test
    void theScanReadsEveryModule() {
        Path root = Path.of("").toAbsolutePath().getParent();
        assertThat(Files.isDirectory(root.resolve("server/src/main/java"))).isTrue();
        assertThat(PackageDependencies.ofProject(root).packages()).contains("dev.inferd.server.openai", "dev.inferd.bench");
    }
}
