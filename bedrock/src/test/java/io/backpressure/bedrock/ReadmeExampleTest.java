package io.backpressure.bedrock;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.bedrock.example.ReadmeExample;
import io.backpressure.client.test.OneCall;
import io.backpressure.client.test.ReadmeSnippet;
import java.net.URI;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;

class ReadmeExampleTest {

  @Test
  void theReadmeExampleRunsAgainstTheMockProvider() throws Exception {
    ConverseResponse reply =
        OneCall.againstTheMock(
            provider ->
                ReadmeExample.ask(
                    BedrockRuntimeClient.builder()
                        .region(Region.US_EAST_1)
                        .credentialsProvider(
                            StaticCredentialsProvider.create(
                                AwsBasicCredentials.create("AKIDEXAMPLE", "secret-example")))
                        .endpointOverride(URI.create(provider.url()))));
    assertThat(reply.usage().totalTokens()).isPositive();
  }

  @Test
  void theReadmeShowsTheExampleAsCompiledWithItsImports() throws Exception {
    String example = "src/test/java/io/backpressure/bedrock/example/ReadmeExample.java";
    ReadmeSnippet.assertShown(example);
    ReadmeSnippet.assertShown(example, "imports");
  }
}
