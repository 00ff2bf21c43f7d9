// Every state file's shape is declared once, in lib/store/formats/ (one module per format); this
// barrel keeps the old import path working.
export * from './formats/index.js';
