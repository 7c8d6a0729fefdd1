import { AgentEvalOpsError } from '../../core/index.ts'
import { terminalText } from '../../reports/escape-terminal.ts'
import { parseS3Url, uploadBundle } from '../../stores/object-store/index.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'

export const uploadCommand: Command = {
  name: 'upload',
  summary: 'Upload a bundle to s3://bucket/prefix/<runId>/ (what a shard run does with --upload)',
  usage: '<bundle> <s3://bucket/prefix>',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {})
    if (values.help) {
      io.out(
        formatCommandHelp(uploadCommand, {
          notes: [
            'Uploads every file of the bundle, then its manifest.json last: a reader (agentevalops merge s3://…)\n' +
              'takes only folders that have their manifest, so a half-done upload is never taken for a bundle.\n' +
              'Uploading the same bundle again puts the same keys with the same content (retry at will); a\n' +
              'different bundle already there under the same run id is refused.\n' +
              "Credentials, region and endpoint come from the AWS SDK's own chain (AWS_ACCESS_KEY_ID /\n" +
              "AWS_SECRET_ACCESS_KEY, AWS_PROFILE, the machine's role; AWS_REGION; AWS_ENDPOINT_URL_S3 for an\n" +
              'S3-compatible server, addressed path-style); nothing of them is written anywhere.',
          ],
          exitCodes: [
            [0, 'uploaded'],
            [1, 'the upload failed (the message says why; the local bundle is untouched)'],
            [2, 'usage error (not a bundle folder and an s3:// URL)'],
          ],
        }),
      )
      return 0
    }
    const [dir, url, ...extra] = positionals
    if (dir === undefined || url === undefined || extra.length > 0)
      throw new AgentEvalOpsError('USAGE', 'give one bundle folder and one s3://bucket/prefix')
    parseS3Url(url)
    const done = await uploadBundle(dir, url)
    io.out(`uploaded ${terminalText(dir)} to ${terminalText(done.url)} (${done.keys} objects)`)
    return 0
  },
}
