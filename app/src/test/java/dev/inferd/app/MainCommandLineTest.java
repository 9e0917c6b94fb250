package dev.inferd.app;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The top-level command line: its list of commands, and words it does not know. */
class MainCommandLineTest {

    record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cli = Main.commandLine();
        var out = new StringWriter();
        var err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** Each command of {@code inferd --help}'s list with its description, continuation lines joined. */
    private static List<String> commandEntries(String help) {
        List<String> entries = new ArrayList<>();
        boolean inList = false;
        for (String line : help.lines().toList()) {
            if (line.equals("Commands:")) {
                inList = true;
            } else if (inList && line.startsWith("   ") && !entries.isEmpty()) {
                entries.set(entries.size() - 1, entries.getLast() + " " + line.strip());
            } else if (inList && line.startsWith("  ")) {
                entries.add(line.strip());
            }
        }
        return entries;
    }

    @Test
    void everyCommandIsListedWithAWholeSentenceAndTheServingAndBenchCommandsWithOneLine() {
        Run help = run("--help");
        assertThat(help.exit()).isZero();
        List<String> entries = commandEntries(help.out());
        assertThat(entries).hasSize(10).allSatisfy(entry -> assertThat(entry).endsWith("."));
        for (String command : List.of("serve", "cloud", "models", "bench", "bench-serve")) {
            assertThat(help.out().lines().filter(l -> l.startsWith("  " + command + " ")).toList()).as(command)
                    .singleElement().satisfies(line -> assertThat(line).endsWith(".").hasSizeLessThanOrEqualTo(80));
        }
    }

    @Test
    void anUnknownCommandIsAnErrorAlsoWithHelp() {
        for (String[] args : List.of(new String[] {"NOSUCH", "--help"}, new String[] {"NOSUCH"})) {
            Run run = run(args);
            assertThat(run.exit()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(run.err()).contains("inferd: unknown command 'NOSUCH'").contains("serve, cloud");
            assertThat(run.out()).doesNotContain("Usage:");
        }
    }

    @Test
    void anUnknownWordAfterACommandIsAnErrorAlsoWithHelp() {
        Run run = run("serve", "NOSUCH", "--help");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("inferd serve: unknown argument 'NOSUCH'");
        Run option = run("serve", "--model", "x.gguf", "--nosuch");
        assertThat(option.exit()).isEqualTo(2);
        assertThat(option.err()).contains("inferd serve: unknown option '--nosuch'");
        Run subcommand = run("keys", "nosuch", "--help");
        assertThat(subcommand.exit()).isEqualTo(2);
        assertThat(subcommand.err()).contains("inferd keys: unknown command 'nosuch'").contains("revoke");
    }

    @Test
    void aCommandsOwnHelpStillExitsZero() {
        Run run = run("serve", "--help");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("Serve models over the OpenAI API on this machine.").contains("--kv-memory");
    }
}
