// zod compiles a parser of its own (`new Function`) for each object schema on its first parse:
// worth it for a schema parsed thousands of times, not for a command that parses a few dozen
// schemas once or twice each (about 8 ms of a resume's start). The checks and messages are the
// same either way. Imported by the executable before the commands' modules build their schemas;
// the libraries leave this choice to the application that owns the process.
import { config } from 'zod';

config({ jitless: true });
