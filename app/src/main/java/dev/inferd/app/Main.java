package dev.inferd.app;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the runnable jar behind {@code ./inferd}. */
@Command(name = "inferd", mixinStandardHelpOptions = true, version = "inferd " + Main.VERSION,
        description = "An OpenAI-compatible inference server with its own pure-Java GGUF engine.",
        subcommands = {ServeCommand.class, CloudCommand.class, GatewayCommand.class, WorkerCommand.class, AccountsCommand.class, KeysCommand.class, BenchGatewayCommand.class, PullCommand.class, ModelsCommand.class, BenchCommand.class, BenchServeCommand.class, SpeechBenchCommand.class})
public final class Main implements Runnable {
    public static final String VERSION = "0.1.0";

    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
