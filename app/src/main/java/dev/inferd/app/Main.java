package dev.inferd.app;

/** Entry point of the runnable jar. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.out.println("inferd: CLI coming up");
    }
}
