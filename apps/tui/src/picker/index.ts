export { SessionPicker, type SessionPickerProps } from './session-picker.js';
export { defaultAction, type PickedAction, type PickedSession } from './use-session-picker.js';
