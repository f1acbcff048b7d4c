/** node-record-lpcm16 recorder definition for sox. */
import soxFamily = require('./sox-family.cjs');

export = (options: soxFamily.Options) => soxFamily('sox', options);
