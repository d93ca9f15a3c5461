/** Reports of runs: summary tables (Markdown, JSON), the matrix table and plots. */
package io.backpressure.eval.report;
