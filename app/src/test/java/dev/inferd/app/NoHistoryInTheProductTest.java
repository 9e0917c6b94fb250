package dev.inferd.app;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The product describes what it is, not how it was made: code, comments, README, docs and scripts carry no
 * work-session numbers and no diary of attempts. Figures and the evidence for a choice belong in
 * {@code docs/performance.md}, stated as current fact. The markers are phrases that only a diary uses, so that
 * ordinary words ("an HTTP session", "a session cookie", "not kept in the cache") stay free.
 */
class NoHistoryInTheProductTest {
    // Each written so that its own source text does not match it.
    private static final List<Pattern> MARKERS = List.of(
            Pattern.compile("\\bsessions? [0-9]+", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\b(?:was|were)\\s+tried\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\btried,?\\s+not\\s+kept\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\bwe\\s+tried\\b", Pattern.CASE_INSENSITIVE));

    /** Files, relative to the project root, that the check leaves out. */
    private static final Set<String> EXCLUDED = Set.of();

    private static final Set<String> SKIPPED_DIRECTORIES = Set.of(".git", "target", ".mvn", ".idea");

    record Violation(String file, int line, String text) {
        @Override
        public String toString() {
            return file + ":" + line + ": " + text.strip();
        }
    }

    @Test
    void noTrackedFileCarriesHistoryOfTheMaking() throws Exception {
        Path root = projectRoot();
        List<Violation> found = scan(root, filesOf(root));
        assertThat(found)
                .as("history of the making in the product (say why, briefly, as current fact; evidence goes to docs/)")
                .isEmpty();
    }

    @Test
    void namesTheFileAndLineOfAPlantedViolation(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("Clean.java"), "// one HTTP session per login, a session cookie\n");
        Files.writeString(dir.resolve("Diary.java"),
                "class Diary {\n    // faster since Ses" + "sion 12\n    // four rows a call were" + " tried\n}\n");
        Files.write(dir.resolve("blob.bin"), new byte[] {0, (byte) 0xff, 's', 'e', 's', 's', 'i', 'o', 'n', ' ', '3'});

        List<Violation> found = scan(dir, List.of(Path.of("Clean.java"), Path.of("Diary.java"), Path.of("blob.bin")));

        assertThat(found).extracting(Violation::file, Violation::line)
                .containsExactly(tuple("Diary.java", 2), tuple("Diary.java", 3));
    }

    static List<Violation> scan(Path root, List<Path> files) {
        var found = new ArrayList<Violation>();
        for (Path file : files) {
            String name = file.toString().replace('\\', '/');
            if (EXCLUDED.contains(name)) continue;
            String text = readText(root.resolve(file));
            if (text == null) continue;
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                if (MARKERS.stream().anyMatch(m -> m.matcher(line).find())) {
                    found.add(new Violation(name, i + 1, line));
                }
            }
        }
        return found;
    }

    /** The file as UTF-8 text, or null for a binary file or one that is gone from the working tree. */
    private static String readText(Path file) {
        try {
            if (!Files.isRegularFile(file)) return null;
            byte[] bytes = Files.readAllBytes(file);
            for (byte b : bytes) if (b == 0) return null;
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The directory holding the root pom (the tests run in the module's directory). */
    private static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.exists(dir.resolve("pom.xml")) && Files.exists(dir.resolve("app/pom.xml")))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("project root above " + Path.of("").toAbsolutePath()).isNotNull();
        return dir;
    }

    /**
     * The files git tracks or would track (new ones not yet added included), or, outside a git checkout, every
     * file but build output and tool directories.
     */
    private static List<Path> filesOf(Path root) throws IOException, InterruptedException {
        List<Path> tracked = gitLsFiles(root);
        if (tracked != null) return tracked;
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile)
                    .map(root::relativize)
                    .filter(p -> {
                        for (Path part : p) if (SKIPPED_DIRECTORIES.contains(part.toString())) return false;
                        return true;
                    })
                    .toList();
        }
    }

    private static List<Path> gitLsFiles(Path root) throws IOException, InterruptedException {
        Process git;
        try {
            git = new ProcessBuilder("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").directory(root.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException noGit) {
            return null;
        }
        byte[] out = git.getInputStream().readAllBytes();
        if (!git.waitFor(30, TimeUnit.SECONDS) || git.exitValue() != 0) return null;
        var files = new ArrayList<Path>();
        for (String name : new String(out, StandardCharsets.UTF_8).split("\0")) {
            if (!name.isEmpty()) files.add(Path.of(name));
        }
        return files;
    }
}
