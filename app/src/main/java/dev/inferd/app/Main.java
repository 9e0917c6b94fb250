package dev.inferd.app;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParseResult;

import java.io.PrintWriter;
import java.util.List;

/** Entry point of the runnable jar behind {@code ./inferd}. */
@Command(name = "inferd", mixinStandardHelpOptions = true, version = "inferd " + Main.VERSION,
        description = "An OpenAI-compatible inference server with its own pure-Java GGUF engine.",
        subcommands = {ServeCommand.class, CloudCommand.class, AccountsCommand.class, KeysCommand.class, BenchGatewayCommand.class, PullCommand.class, ModelsCommand.class, BenchCommand.class, BenchServeCommand.class, SpeechBenchCommand.class})
public final class Main implements Runnable {
    public static final String VERSION = "0.1.0";

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line with its subcommands. Words it does not know are an error (exit 2) also beside
     * {@code --help}, which picocli would otherwise answer with the help and exit 0, hiding the typo.
     */
    static CommandLine commandLine() {
        var cli = new CommandLine(new Main());
        cli.setExecutionStrategy(Main::execute);
        CommandLine.IParameterExceptionHandler usual = cli.getParameterExceptionHandler();
        cli.setParameterExceptionHandler((e, args) -> e instanceof CommandLine.UnmatchedArgumentException u
                ? unknown(u.getCommandLine(), u.getUnmatched()) : usual.handleParseException(e, args));
        return cli;
    }

    private static int execute(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (!p.unmatched().isEmpty()) return unknown(p.commandSpec().commandLine(), p.unmatched());
        }
        return new CommandLine.RunLast().execute(parsed);
    }

    /** One line naming what was not understood, and where the right words are listed. */
    private static int unknown(CommandLine command, List<String> unmatched) {
        PrintWriter err = command.getErr();
        String name = command.getCommandSpec().qualifiedName();
        String first = unmatched.getFirst();
        boolean commandExpected = !command.getSubcommands().isEmpty() && !first.startsWith("-");
        if (commandExpected) {
            err.println(name + ": unknown command '" + first + "'. The commands are: "
                    + String.join(", ", command.getSubcommands().keySet()) + " ('" + name + " --help' says what each does).");
        } else {
            err.println(name + ": unknown " + (first.startsWith("-") ? "option" : "argument") + " '" + first
                    + "' (see '" + name + " --help').");
        }
        err.flush();
        return command.getCommandSpec().exitCodeOnInvalidInput();
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
