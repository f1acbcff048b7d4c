/** node-record-lpcm16 recorder definition for rec. */
import soxFamily = require('./sox-family.cjs');

export = (options: soxFamily.Options) => soxFamily('rec', options);
