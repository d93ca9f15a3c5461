package io.backpressure.eval;

import java.io.Console;

/** Whether the process talks to an interactive terminal, where a progress bar may redraw itself. */
final class Terminal {
  private Terminal() {}

  /**
   * Whether standard input and output are a terminal. Up to JDK 21 a {@link System#console()}
   * exists exactly then; from JDK 22 it exists with redirected streams too, and {@code
   * Console.isTerminal()} tells (looked up by name, as the code is built for JDK 17).
   */
  @SuppressWarnings("SystemConsoleNull") // null is the answer up to JDK 21; isTerminal() after
  static boolean attached() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (NoSuchMethodException beforeJdk22) {
      return true;
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }
}
