package io.backpressure.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Runs one admin action and prints its result (text, or one JSON document) or its failure, and
 * turns the outcome into the exit code.
 */
final class Output {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** What an action prints: a text report and the same content as JSON. */
  record Result(String text, ObjectNode json) {}

  private Output() {}

  /**
   * Runs {@code action}. On success prints its text (or JSON) on stdout and returns 0; on failure
   * prints {@code admin: MESSAGE (field: F)} on stderr, or with {@code json} the document {@code
   * {"error": {"exit_code": N, "field": F, "message": M}}} on stdout, and returns the exit code.
   */
  static int run(CommandSpec spec, boolean json, Supplier<Result> action) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      Result result = action.get();
      out.print(json ? write(result.json()) : result.text());
      out.flush();
      return AdminCommand.OK;
    } catch (AdminException e) {
      if (json) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("exit_code", e.exitCode());
        error.put("field", e.field());
        error.put("message", e.getMessage());
        out.print(write(root));
        out.flush();
      } else {
        err.println(
            "admin: " + e.getMessage() + (e.field() == null ? "" : " (field: " + e.field() + ")"));
        err.flush();
      }
      return e.exitCode();
    }
  }

  static String write(ObjectNode node) {
    try {
      return JSON.writeValueAsString(node) + System.lineSeparator();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A number as people write it: integers without a fraction, others with up to 4 decimals. */
  static String number(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return String.valueOf(value);
    }
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      return Long.toString((long) value);
    }
    String text = String.format(Locale.ROOT, "%.4f", value);
    return text.replaceAll("0+$", "").replaceAll("\\.$", "");
  }
}
