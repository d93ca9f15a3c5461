/**
 * The {@code ./backpressure} launcher: one picocli command with the project's commands under it.
 */
package io.backpressure.cli;
